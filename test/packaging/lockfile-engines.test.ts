import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { satisfiesNodeRange } from '../support/node-range.js';

/*
 * `npm ci` on a system Node older than the tools need warns only about dualloop's own
 * requirement (ADR/0402): the lockfile records no `engines` of other packages, because npm
 * compares them with the Node running npm while here every package runs on the `node`
 * devDependency. What the lockfile no longer says is checked here instead, against that Node.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const readJson = <T>(path: string) => JSON.parse(readFileSync(join(ROOT, path), 'utf8')) as T;
interface LockEntry {
  readonly engines?: { readonly node?: string };
}

describe('engines in package-lock.json', () => {
  const lock = readJson<{ packages: Record<string, LockEntry> }>('package-lock.json');

  it("records dualloop's own and no other package's (run `node scripts/lockfile-without-engines.mjs` after npm install)", () => {
    const recorded = Object.entries(lock.packages).filter(([location, entry]) => location !== '' && entry.engines !== undefined).map(([location]) => location);
    expect(recorded).toEqual([]);
    expect(lock.packages['']?.engines).toEqual(readJson<LockEntry>('package.json').engines);
  });

  it('every installed package accepts the Node it runs on here (the node devDependency)', () => {
    const node = execFileSync(join(ROOT, 'node_modules', '.bin', 'node'), ['--version'], { encoding: 'utf8' }).trim();
    const refused = Object.keys(lock.packages)
      .filter((location) => location !== '' && existsSync(join(ROOT, location, 'package.json')))
      .flatMap((location) => {
        const range = readJson<LockEntry & { name?: string }>(join(location, 'package.json')).engines?.node;
        return range === undefined || satisfiesNodeRange(node, range) ? [] : [`${location} needs node ${range}`];
      });
    expect(refused, `on ${node}`).toEqual([]);
  });
});

it('reads engines.node ranges as npm does', () => {
  const cases: [string, string, boolean][] = [
    ['v24.21.0', '^22.12.0 || ^24.0.0 || >=26.0.0', true],
    ['v25.1.0', '^22.12.0 || ^24.0.0 || >=26.0.0', false],
    ['v20.20.2', '>=22', false],
    ['v20.20.2', '^20.19.0 || >=22.12.0', true],
    ['v20.18.0', '^20.19.0 || >=22.12.0', false],
    ['v24.21.0', '>= 10.x', true],
    ['v24.21.0', '>=12.13', true],
    ['v24.21.0', '^10 || ^12 || ^13.7 || ^14 || >=15.0.1', true],
    ['v13.6.0', '^10 || ^12 || ^13.7 || ^14 || >=15.0.1', false],
    ['v24.21.0', '>=18 <24', false],
    ['v24.21.0', '~24.21', true],
    ['v24.22.0', '~24.21', false],
    ['v24.21.0', '*', true],
  ];
  for (const [version, range, expected] of cases) expect(satisfiesNodeRange(version, range), `${version} ${range}`).toBe(expected);
  expect(() => satisfiesNodeRange('v24.21.0', '22 - 24')).toThrow('engines.node range not understood: "22 - 24"');
});
