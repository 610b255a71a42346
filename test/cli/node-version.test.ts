import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { packedConsumer } from '../support/packed-package.js';
import { CLI, NODE, ROOT } from './cli-process.js';
import { useWorkspace } from './workspace.js';

/*
 * On a Node.js older than 22.13 (no node:sqlite) the commands that need no SQLite store work —
 * --help, --version, init, validate, and run with --store :memory: — in a project that installed
 * dualloop from its `npm pack` tarball; a command that needs a SQLite store says which Node it
 * needs and how to get one, ready to paste (exit 64, nothing created); the library imports and
 * runs on a memory store, `sqliteStore` naming the Node it needs. Every case runs on Node 24 made
 * to look like Node 20 (a preload that reports 20.11.1 and removes node:sqlite), and also on each
 * real Node older than 22.13 found on the machine (`which -a node`, /usr/bin/node).
 */

const workspace = useWorkspace();
const PRETEND = pathToFileURL(`${ROOT}test/support/pretend-old-node.mjs`).href;
const PRETEND_ANCIENT = pathToFileURL(`${ROOT}test/support/pretend-ancient-node.mjs`).href;
const { version: VERSION } = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as { version: string };

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

/** The environment of a shell where `dualloop` is not on PATH and npm did not start the command. */
function shellEnvironment(): NodeJS.ProcessEnv {
  const environment: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', PATH: '/usr/bin:/bin' };
  for (const name of Object.keys(environment)) if (name.startsWith('npm_')) delete environment[name];
  return environment;
}

function run(node: OldNode, args: readonly string[], cwd: string) {
  const [binary, ...flags] = node.command;
  return spawnSync(binary!, [...flags, ...args], { cwd, encoding: 'utf8', env: shellEnvironment() });
}

let consumer: string;
let project: string | undefined;
beforeAll(async () => {
  consumer = await packedConsumer();
}, 120_000);
afterEach(() => {
  if (project !== undefined) rmSync(project, { recursive: true, force: true });
  project = undefined;
});

/** A fresh directory in the consumer project, with the starter `dualloop init` writes. */
function starterProject(node: OldNode): string {
  project = mkdtempSync(join(consumer, 'old-node-'));
  const init = run(node, [dualloop(), 'init', 'starter'], project);
  expect(init.stderr).toBe('');
  expect(init.status).toBe(0);
  return project;
}

const dualloop = () => join(consumer, 'node_modules', '.bin', 'dualloop');

describe.each(OLD_NODES)('on $name', (node) => {
  it('--help, --version, init and validate need no node:sqlite: they work', () => {
    const dir = starterProject(node);
    const help = run(node, [dualloop(), '--help'], dir);
    expect(help.stdout).toContain('Usage: dualloop [options] [command]');
    expect(help.status).toBe(0);
    expect(run(node, [dualloop(), 'run', '--help'], dir).status).toBe(0);
    const version = run(node, [dualloop(), '--version'], dir);
    expect(version.stdout).toBe(`${VERSION}\n`);
    expect(version.status).toBe(0);
    const validate = run(node, [dualloop(), 'validate', 'starter/dualloop.yaml'], dir);
    expect(validate.stderr).toBe('');
    expect(validate.stdout).toMatch(/^starter\/dualloop\.yaml: valid/);
    expect(validate.status).toBe(0);
  });

  it('run --store :memory: runs the starter on this Node, keeping nothing on disk', () => {
    const dir = starterProject(node);
    const result = run(node, [dualloop(), 'run', 'starter/dualloop.yaml', '--store', ':memory:'], dir);
    expect(result.stderr).toBe('stop: goal_achieved — all 2 tasks finished\n');
    expect(JSON.parse(result.stdout.trim().split('\n').at(-1)!)).toMatchObject({ type: 'workflow_end', stop: { reason: 'goal_achieved' } });
    expect(result.status).toBe(0);
    expect(existsSync(join(dir, '.dualloop'))).toBe(false);
  });

  it('run on a SQLite store says which Node it needs and three ways on, each ready to paste, and creates nothing', () => {
    const dir = starterProject(node);
    const result = run(node, [dualloop(), 'run', 'starter/dualloop.yaml', '--run-id', 'first one'], dir);
    expect(result.stdout).toBe('');
    expect(result.stderr.split('\n')).toEqual([
      `dualloop: the SQLite store .dualloop/runs.db needs Node.js >=22.13 (for node:sqlite); this is Node.js ${node.version}. Either:`,
      `  - run this command on Node.js 24, fetched by npm:  npx -p node@24 -p dualloop@${VERSION} dualloop run starter/dualloop.yaml --run-id 'first one'`,
      '  - install Node.js 24 with a version manager (nvm install 24, fnm install 24, volta install node@24), then run it again',
      "  - keep the run in memory, on this Node.js (no resume or audit afterwards):  npx dualloop run starter/dualloop.yaml --run-id 'first one' --store :memory:",
      '',
    ]);
    expect(result.status).toBe(64);
    expect(existsSync(join(dir, '.dualloop'))).toBe(false);
  });

  it('a command that reads a SQLite store offers a newer Node, not the in-memory store', () => {
    const dir = starterProject(node);
    writeFileSync(join(dir, 'runs.db'), '');
    const result = run(node, [dualloop(), 'audit', 'run-1', '--store=runs.db'], dir);
    expect(result.stderr.split('\n')).toEqual([
      `dualloop: the SQLite store runs.db needs Node.js >=22.13 (for node:sqlite); this is Node.js ${node.version}. Either:`,
      `  - run this command on Node.js 24, fetched by npm:  npx -p node@24 -p dualloop@${VERSION} dualloop audit run-1 --store=runs.db`,
      '  - install Node.js 24 with a version manager (nvm install 24, fnm install 24, volta install node@24), then run it again',
      '',
    ]);
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

it('on a Node.js where the command itself cannot load, it says which Node it needs in one line and exits 64', () => {
  const { dir } = workspace();
  const ancient: OldNode = { name: 'Node.js 24 made to look like Node.js 18.20.4', version: '18.20.4', command: [NODE, '--import', PRETEND_ANCIENT] };
  const result = run(ancient, [CLI, '--version'], dir);
  expect(result.stdout).toBe('');
  expect(result.stderr).toBe('dualloop needs Node.js >=22.13 (for node:sqlite); this is Node.js 18.20.4: install a newer Node.js (nvm install 24, or another version manager), or run this command on one with npx -p node@24 -p dualloop dualloop …\n');
  expect(result.status).toBe(64);
});

it('the command runs on the Node it needs', () => {
  const { dir } = workspace();
  const result = run({ name: 'Node.js 24', version: process.versions.node, command: [NODE] }, [CLI, '--version'], dir);
  expect(result.status).toBe(0);
  expect(result.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
});
