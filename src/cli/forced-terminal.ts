/**
 * `DUALLOOP_TERMINAL=<columns>x<rows>` renders the live view as if stdout were a terminal of that
 * size, even when it is a pipe (docs/cli.md). It lets a test feed the real output into a terminal
 * emulator (test/cli/terminal.test.ts), and a user record the view, without a pseudo-terminal.
 */
export const FORCED_TERMINAL_ENV = 'DUALLOOP_TERMINAL';

export interface TerminalSize {
  readonly columns: number;
  readonly rows: number;
}

/** The forced size, `undefined` when the variable is unset, or a message when it is malformed. */
export function forcedTerminalSize(environment: NodeJS.ProcessEnv = process.env): TerminalSize | undefined | string {
  const value = environment[FORCED_TERMINAL_ENV];
  if (value === undefined || value === '') return undefined;
  const match = /^(\d{1,4})x(\d{1,4})$/.exec(value.trim());
  const columns = Number(match?.[1]);
  const rows = Number(match?.[2]);
  if (match === null || columns < 20 || rows < 5) return `${FORCED_TERMINAL_ENV}=${value} must be <columns>x<rows>, at least 20x5 (for example 120x40)`;
  return { columns, rows };
}

/** Makes `stream` look like a terminal of `size` to the live view and log-update. */
export function forceTerminal(stream: NodeJS.WriteStream, size: TerminalSize): NodeJS.WriteStream {
  Object.assign(stream, { isTTY: true, columns: size.columns, rows: size.rows });
  return stream;
}
