#!/usr/bin/env node
/**
 * The `dualloop` executable. Every command loads on a Node.js older than dualloop's requirement,
 * so `--help`, `--version`, `init` and `validate` work there; a command that needs `node:sqlite`
 * (a SQLite store) says which Node it needs and how to get it when it comes to open the store
 * (src/cli/newer-node.ts). Should the command itself fail to load on an old Node, that is said in
 * one line instead of a module-loading stack trace. Keep this file's imports to node-version.ts
 * and node:module's default export (present on every Node).
 */
import nodeModule from 'node:module';
import { nodeVersionProblem } from '../node-version.js';

// Node's on-disk compile cache for everything the command loads from here on (ADR/0392): a
// command that loads the kernel starts ~40 ms sooner from its second run. The directory is
// NODE_COMPILE_CACHE's or the OS temp directory's; NODE_DISABLE_COMPILE_CACHE=1 turns it off.
// It never fails a command: a cache that cannot be written is skipped.
nodeModule.enableCompileCache?.();
try {
  await import('./main.js');
} catch (error) {
  const problem = nodeVersionProblem('dualloop');
  if (problem === undefined) throw error;
  process.stderr.write(`${problem}: install a newer Node.js (nvm install 24, or another version manager), or run this command on one with npx -p node@24 -p dualloop dualloop …\n`);
  process.exitCode = 64;
}
