/** The process surface a command uses, so commands stay testable in-process. */
export interface CommandIO {
  readonly stdout: NodeJS.WriteStream;
  readonly stderr: NodeJS.WriteStream;
  readonly cwd: string;
}

export function processIO(): CommandIO {
  return { stdout: process.stdout, stderr: process.stderr, cwd: process.cwd() };
}

/** `dualloop: message` on stderr. */
export function complain(io: CommandIO, message: string): void {
  io.stderr.write(`dualloop: ${message}\n`);
}
