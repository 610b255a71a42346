import { forcedTerminalSize, forceTerminal } from './forced-terminal.js';

/** The process surface a command uses, so commands stay testable in-process. */
export interface CommandIO {
  readonly stdout: NodeJS.WriteStream;
  readonly stderr: NodeJS.WriteStream;
  readonly cwd: string;
}

/** The process's streams; stdout made a terminal when DUALLOOP_TERMINAL asks (checked by main first). */
export function processIO(): CommandIO {
  const size = forcedTerminalSize();
  const stdout = typeof size === 'object' && process.stdout.isTTY !== true ? forceTerminal(process.stdout, size) : process.stdout;
  return { stdout, stderr: process.stderr, cwd: process.cwd() };
}

/** `dualloop: message` on stderr. */
export function complain(io: CommandIO, message: string): void {
  io.stderr.write(`dualloop: ${message}\n`);
}
