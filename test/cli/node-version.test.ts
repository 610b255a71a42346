import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CLI, NODE, ROOT } from './cli-process.js';
import { useWorkspace } from './workspace.js';

/*
 * On a Node.js older than 22.13 (no node:sqlite) the command says in one line which Node it needs
 * and which it found (exit 64), and the library imports and runs on a memory store, `sqliteStore`
 * naming the Node it needs. Every case runs on Node 24 made to look like Node 20 (a preload that
 * reports 20.11.1 and removes node:sqlite), and also on each real Node older than 22.13 found on
 * the machine (`which -a node`, /usr/bin/node).
 */

const workspace = useWorkspace();
const PRETEND = pathToFileURL(`${ROOT}test/support/pretend-old-node.mjs`).href;

interface OldNode {
  readonly name: string;
  readonly version: string;
  readonly command: readonly string[];
}

function versionOf(binary: string): string | undefined {
  try {
    return execFileSync(binary, ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim();
  } catch {
    return undefined;
  }
}

function isOlderThanRequired(version: string): boolean {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  return major < 22 || (major === 22 && minor < 13);
}

function realOldNodes(): OldNode[] {
  let onPath: string[] = [];
  try {
    onPath = execFileSync('which', ['-a', 'node'], { encoding: 'utf8' }).split('\n').filter(Boolean);
  } catch {
    // no `which`, or no node on PATH
  }
  const seen = new Set<string>();
  return [...onPath, '/usr/bin/node'].flatMap((binary) => {
    const version = existsSync(binary) ? versionOf(binary) : undefined;
    if (version === undefined || !isOlderThanRequired(version) || seen.has(version)) return [];
    seen.add(version);
    return [{ name: `${binary} (Node.js ${version})`, version, command: [binary] }];
  });
}

const OLD_NODES: readonly OldNode[] = [{ name: 'Node.js 24 made to look like Node.js 20.11.1', version: '20.11.1', command: [NODE, '--import', PRETEND] }, ...realOldNodes()];

function run(node: OldNode, args: readonly string[], cwd: string) {
  const [binary, ...flags] = node.command;
  return spawnSync(binary!, [...flags, ...args], { cwd, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
}

describe.each(OLD_NODES)('on $name', (node) => {
  it('the command says in one line which Node it needs and which it found, and exits 64', () => {
    const { dir } = workspace();
    const result = run(node, [CLI, 'run', 'manifest.yaml'], dir);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(`dualloop needs Node.js >=22.13 (for node:sqlite); this is Node.js ${node.version}\n`);
    expect(result.status).toBe(64);
  });

  it('the library imports and runs on a memory store; sqliteStore names the Node it needs', () => {
    const { dir, write } = workspace();
    const library = pathToFileURL(`${ROOT}dist/bundle/index.js`).href;
    const testing = pathToFileURL(`${ROOT}dist/bundle/testing.js`).href;
    write(
      'script.mjs',
      `import { createKernel, memoryStore, sqliteStore } from '${library}';
import { scriptedModel } from '${testing}';
const kernel = createKernel({ model: scriptedModel([{ text: 'five' }]), store: memoryStore() });
const result = await kernel.start(['Add 2 and 3.']).result;
console.log(result.stop.reason);
try {
  sqliteStore({ path: 'runs.db' });
} catch (error) {
  console.log(error.name, error.code, error.message);
}
`,
    );
    const result = run(node, ['script.mjs'], dir);
    expect(result.stderr).toBe('');
    expect(result.stdout.split('\n')).toEqual([
      'goal_achieved',
      `StoreError store_failed sqliteStore needs Node.js >=22.13 (for node:sqlite); this is Node.js ${node.version}: use memoryStore() or upgrade Node.js`,
      '',
    ]);
    expect(existsSync(`${dir}/runs.db`)).toBe(false);
  });
});

it('the command runs on the Node it needs', () => {
  const { dir } = workspace();
  const result = run({ name: 'Node.js 24', version: process.versions.node, command: [NODE] }, [CLI, '--version'], dir);
  expect(result.status).toBe(0);
  expect(result.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
});
