#!/usr/bin/env node
/**
 * The `dualloop` executable. It checks the Node.js version before anything that needs a newer one is
 * loaded (the store's `node:sqlite`), so an old Node gets one line saying what to install instead
 * of a module-loading stack trace, then hands over to the command (main.ts). Keep this file's
 * imports to node-version.ts and node:module's default export (present on every Node).
 */
import nodeModule from 'node:module';
import { nodeVersionProblem } from '../node-version.js';

const problem = nodeVersionProblem('dualloop');
if (problem === undefined) {
  // Node's on-disk compile cache for everything the command loads from here on (ADR/0392): a
  // command that loads the kernel starts ~40 ms sooner from its second run. The directory is
  // NODE_COMPILE_CACHE's or the OS temp directory's; NODE_DISABLE_COMPILE_CACHE=1 turns it off.
  // It never fails a command: a cache that cannot be written is skipped.
  nodeModule.enableCompileCache?.();
  await import('./main.js');
} else {
  process.stderr.write(`${problem}\n`);
  process.exitCode = 64;
}
