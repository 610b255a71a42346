#!/usr/bin/env node
/**
 * The `dualloop` executable. It checks the Node.js version before anything that needs a newer one is
 * loaded (the store's `node:sqlite`), so an old Node gets one line saying what to install instead
 * of a module-loading stack trace, then hands over to the command (main.ts). Keep this file's
 * imports to node-version.ts alone.
 */
import { nodeVersionProblem } from '../node-version.js';

const problem = nodeVersionProblem('dualloop');
if (problem === undefined) {
  await import('./main.js');
} else {
  process.stderr.write(`${problem}\n`);
  process.exitCode = 64;
}
