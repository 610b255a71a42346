import { commandName, type CommandName } from './command-name.js';
import { forcedTerminalSize, forceTerminal } from './forced-terminal.js';

/** The process surface a command uses, so commands stay testable in-process. */
export interface CommandIO {
  readonly stdout: NodeJS.WriteStream;
  readonly stderr: NodeJS.WriteStream;
  readonly cwd: string;
  /** How the user runs dualloop here (`dualloop` or `npx dualloop`): the start of every printed hint. */
  readonly command: CommandName;
  /** The arguments after `dualloop`, as given: a hint that repeats the whole command uses them. */
  readonly args: readonly string[];
}

/** The process's streams; stdout made a terminal when DUALLOOP_TERMINAL asks (checked by main first). */
export function processIO(): CommandIO {
  const size = forcedTerminalSize();
  const stdout = typeof size === 'object' && process.stdout.isTTY !== true ? forceTerminal(process.stdout, size) : process.stdout;
  return { stdout, stderr: process.stderr, cwd: process.cwd(), command: commandName(), args: process.argv.slice(2) };
}

/** `dualloop: message` on stderr. */
export function complain(io: CommandIO, message: string): void {
  io.stderr.write(`dualloop: ${message}\n`);
}
