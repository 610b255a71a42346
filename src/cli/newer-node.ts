import { nodeVersionProblem } from '../node-version.js';
import type { CommandIO } from './command-io.js';
import { MEMORY_STORE } from './open-store.js';
import { packageVersion } from './package-version.js';
import { shellWord } from './postgres-url.js';

/** The Node.js release line the advice names: a current LTS, which has `node:sqlite`. */
const SUGGESTED_NODE = 24;


/**
 * What to say when a command must open a SQLite store (`node:sqlite`) on a Node.js too old for
 * it; `undefined` when this Node will do. The library's own message ("use memoryStore()") speaks
 * to code; this one gives the user of the command its ways on, each ready to paste: the same
 * command on a newer Node that npm fetches, a version manager, and for `run` the in-memory store.
 */
export function sqliteStoreAdvice(where: string, io: CommandIO, offerMemory: boolean): string | undefined {
  const problem = nodeVersionProblem(`the SQLite store ${where}`);
  if (problem === undefined) return undefined;
  const words = (args: readonly string[]) => args.map(shellWord).join(' ');
  const lines = [
    `${problem}. Either:`,
    `  - run this command on Node.js ${SUGGESTED_NODE}, fetched by npm:  npx -p node@${SUGGESTED_NODE} -p dualloop@${packageVersion()} dualloop ${words(io.args)}`,
    `  - install Node.js ${SUGGESTED_NODE} with a version manager (nvm install ${SUGGESTED_NODE}, fnm install ${SUGGESTED_NODE}, volta install node@${SUGGESTED_NODE}), then run it again`,
  ];
  if (offerMemory) lines.push(`  - keep the run in memory, on this Node.js (no resume or audit afterwards):  ${io.command} ${words([...withoutStore(io.args), '--store', MEMORY_STORE])}`);
  return lines.join('\n');
}

/** The arguments without `--store X` / `--store=X`. */
function withoutStore(args: readonly string[]): string[] {
  const kept: string[] = [];
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index]!;
    if (arg === '--store') index += 1;
    else if (!arg.startsWith('--store=')) kept.push(arg);
  }
  return kept;
}
