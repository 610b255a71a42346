// Removes the `engines` field that npm records for every package in package-lock.json, the
// root's excepted (ADR/0402). npm compares those fields with the Node that runs npm, not with
// the Node that runs the packages: here every script, test and tool runs on the `node`
// devDependency (Node 24), so on an older system Node `npm ci` warned ~60 lines about tools that
// never run on it. Without them, `npm ci` warns only about dualloop's own requirement.
// test/packaging/lockfile-engines.test.ts checks that the lockfile has none and that every
// installed package's own `engines.node` accepts the Node it runs on. Run after `npm install`
// adds or updates a package: `node scripts/lockfile-without-engines.mjs`.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const path = fileURLToPath(new URL('../package-lock.json', import.meta.url));
const lock = JSON.parse(readFileSync(path, 'utf8'));
let removed = 0;
for (const [location, entry] of Object.entries(lock.packages ?? {})) {
  if (location === '' || entry.engines === undefined) continue;
  delete entry.engines;
  removed += 1;
}
// npm's own layout: two-space JSON and a final newline, so that npm rewrites it unchanged.
writeFileSync(path, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`package-lock.json: removed engines from ${removed} package${removed === 1 ? '' : 's'}`);
