import { realpathSync, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/** How the user runs dualloop where they are: the words a printed hint starts with. */
export type CommandName = 'dualloop' | 'npx dualloop';

/**
 * The command a hint should print (`continue it with: <name> resume …`) so that it runs as pasted
 * (ADR/0409). `dualloop` when that name on the user's PATH is this very program (a global
 * install, `npm link`, node_modules/.bin on PATH); `npx dualloop` otherwise, which finds the
 * project's copy. A process started by npm (`npx`, `npm exec`, `npm run`: npm sets
 * `npm_lifecycle_event`) sees a PATH npm extended with node_modules/.bin, which the user's own
 * shell does not have, so there it is `npx dualloop` without a look at PATH.
 */
export function commandName(environment: NodeJS.ProcessEnv = process.env, program: string | undefined = process.argv[1]): CommandName {
  if (environment['npm_lifecycle_event'] !== undefined) return 'npx dualloop';
  const self = program === undefined ? undefined : realPath(program);
  if (self === undefined) return 'npx dualloop';
  const path = environment['PATH'] ?? environment['Path'] ?? '';
  for (const directory of path.split(delimiter)) {
    if (directory === '') continue;
    // Windows installs a `dualloop.cmd` shim, which cannot be compared with this file: its presence will do.
    if (process.platform === 'win32' && isFile(join(directory, 'dualloop.cmd'))) return 'dualloop';
    const found = realPath(join(directory, 'dualloop'));
    if (found !== undefined) return found === self ? 'dualloop' : 'npx dualloop';
  }
  return 'npx dualloop';
}

function realPath(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
