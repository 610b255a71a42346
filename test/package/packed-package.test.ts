import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeBlocks } from '../support/markdown-blocks.js';
import { startOpenAICompatibleServer, textAnswer, type OpenAICompatibleServer } from '../support/openai-compatible-server.js';
import { compileInConsumer, NO_NODE_TYPES_COMPILER_OPTIONS, packedConsumer } from '../support/packed-package.js';

/*
 * The package as a user installs it (ADR 0094): `npm pack`, the tarball installed into a consumer
 * project with strict TypeScript and `module: nodenext`, every `exports` entry imported, the
 * README's first code example typechecked and run (its OpenAI-compatible model answered by a local
 * server), and the installed `dualloop` command started.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const NODE = join(ROOT, 'node_modules', '.bin', 'node');
const run = promisify(execFile);
let consumer: string;
let server: OpenAICompatibleServer;

beforeAll(async () => {
  consumer = await packedConsumer();
  server = await startOpenAICompatibleServer();
}, 120_000);
afterAll(() => server?.close());

/** `dualloop`, `dualloop/testing`…: every entry of package.json's `exports` but the manifest itself. */
function exportEntries(): string[] {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { exports: Record<string, unknown> };
  return Object.keys(manifest.exports).filter((entry) => entry !== './package.json').map((entry) => `dualloop${entry.slice(1)}`);
}

/** A module that imports every entry as a namespace and uses each (no global of any lib needed). */
function importEveryEntry(entries: readonly string[]): string {
  return [...entries.map((entry, index) => `import * as entry${index} from '${entry}';`), `export const exported = [${entries.map((_, index) => `Object.keys(entry${index}).length`).join(', ')}];`, ''].join('\n');
}

describe('the packed package in a consumer project', () => {
  it('resolves every exports entry, with types, under strict TypeScript and module nodenext', async () => {
    const entries = exportEntries();
    expect(entries).toContain('dualloop');
    const source = [
      ...entries.map((entry, index) => `import * as entry${index} from '${entry}';`),
      `const loaded: Record<string, number> = { ${entries.map((entry, index) => `'${entry}': Object.keys(entry${index}).length`).join(', ')} };`,
      'console.log(JSON.stringify(loaded));',
      '',
    ].join('\n');
    const { dir, compiled } = await compileInConsumer(consumer, { 'main.ts': source });
    expect(compiled.output).toBe('');
    const { stdout } = await run(NODE, ['out/main.js'], { cwd: dir });
    const loaded = JSON.parse(stdout) as Record<string, number>;
    expect(Object.keys(loaded)).toEqual(entries);
    for (const entry of entries) expect(loaded[entry], `${entry} exports nothing`).toBeGreaterThan(0);
  });

  it('typechecks with skipLibCheck: false and no types the consumer lacks (no @types/pg, no @types/json-schema, no @opentelemetry/api)', async () => {
    const { compiled } = await compileInConsumer(consumer, { 'main.ts': importEveryEntry(exportEntries()) }, [], { skipLibCheck: false });
    expect(compiled.output).toBe('');
    expect(compiled.code).toBe(0);
  });

  it('typechecks every exports entry with skipLibCheck: false for a consumer who never installed @types/node', async () => {
    const bare = await packedConsumer([], { nodeTypes: false });
    expect(existsSync(join(bare, 'node_modules', '@types', 'node')), 'the consumer must not have @types/node').toBe(false);
    const { compiled } = await compileInConsumer(bare, { 'main.ts': importEveryEntry(exportEntries()) }, [], { ...NO_NODE_TYPES_COMPILER_OPTIONS, skipLibCheck: false });
    expect(compiled.output).toBe('');
    expect(compiled.code).toBe(0);
  }, 120_000);

  it("accepts pg's own Pool where postgresStore takes a pool (for a consumer who has @types/pg)", async () => {
    const source = [
      "import pg from 'pg';",
      "import { postgresStore, type PostgresConnection } from 'dualloop';",
      "const connection: PostgresConnection = { pool: new pg.Pool({ connectionString: 'postgres://127.0.0.1:9/never' }) };",
      'export const open = () => postgresStore(connection);',
      '',
    ].join('\n');
    const { compiled } = await compileInConsumer(consumer, { 'main.ts': source }, ['@types/pg']);
    expect(compiled.output).toBe('');
  });

  it("typechecks and runs the README's first code example", async () => {
    const first = codeBlocks(ROOT, 'README.md').find((block) => block.language === 'ts' || block.language === 'typescript');
    expect(first, 'README.md has no TypeScript example').toBeDefined();
    const { dir, compiled } = await compileInConsumer(consumer, { 'main.ts': first!.code });
    expect(compiled.output).toBe('');
    server.enqueue(...Array.from({ length: 20 }, () => textAnswer(['Done.'])));
    const env = { ...process.env, OPENAI_API_KEY: 'test-key', OPENAI_BASE_URL: server.baseURL };
    const { stdout, stderr } = await run(NODE, ['out/main.js'], { cwd: dir, env });
    expect(stderr).toBe('');
    expect(stdout).toMatch(/planner_stopped/);
    expect(server.requests.length).toBeGreaterThan(0);
  });

  it('`dualloop init` writes a starter that `dualloop run` runs offline at once; a second init overwrites nothing', async () => {
    const dualloop = join(consumer, 'node_modules', '.bin', 'dualloop');
    const dir = mkdtempSync(join(consumer, 'init-'));
    const init = await run(NODE, [dualloop, 'init', 'starter'], { cwd: dir });
    expect(init.stdout).toMatch(/^run it \(offline, on the recorded model\): {2}(npx )?dualloop run starter\/dualloop\.yaml$/m);
    expect(readdirSync(join(dir, 'starter')).sort()).toEqual(['dualloop-tools.mjs', 'dualloop.cassette.yaml', 'dualloop.yaml']);

    const { stdout } = await run(NODE, [dualloop, 'run', 'starter/dualloop.yaml', '--run-id', 'starter-1'], { cwd: dir, env: { ...process.env, NO_COLOR: '1' } });
    const events = stdout.trim().split('\n').map((line) => JSON.parse(line) as { type: string; stop?: { reason: string }; name?: string; isError?: boolean; result?: unknown; text?: string });
    expect(events.filter((event) => event.type === 'task_end').map((event) => event.stop?.reason)).toEqual(['planner_stopped', 'planner_stopped']);
    expect(events.at(-1)).toMatchObject({ type: 'workflow_end', stop: { reason: 'goal_achieved' } });
    expect(events.filter((event) => event.type === 'tool_execution_end').map((event) => [event.name, event.isError])).toEqual([['count_words', false], ['calculator', false]]);
    // The recorded answers agree with what the tools computed: a new user's first run is not wrong.
    const [words, doubled] = events.filter((event) => event.type === 'tool_execution_end').map((event) => event.result as { words?: number; result?: number });
    const answers = events.filter((event) => event.type === 'message_end' && event.text !== '').map((event) => event.text);
    expect(answers).toEqual([`The sentence has ${words!.words} words.`, `Twice the word count is ${doubled!.result}.`]);
    expect(doubled!.result).toBe(words!.words! * 2);

    const again = await run(NODE, [dualloop, 'init', 'starter'], { cwd: dir }).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code: number; stderr: string }) => error,
    );
    expect(again.code).toBe(64);
    expect(again.stderr).toContain('already exist: nothing written (--force overwrites)');
  });

  it('ships the library, the CLI, the viewer and the docs, and no repository example (they read files the tarball lacks)', () => {
    const installed = join(consumer, 'node_modules', 'dualloop');
    const shipped = readdirSync(installed, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => relative(installed, join(entry.parentPath, entry.name)));
    const outside = shipped.filter((path) => !/^(dist\/(src|bundle|machines|viewer)\/|docs\/|README\.md$|LICENSE$|package\.json$)/.test(path));
    expect(outside).toEqual([]);
    expect(shipped).toContain('dist/src/cli/bin.js');
  });

  it('installs the dualloop command', async () => {
    const { stdout } = await run(NODE, [join(consumer, 'node_modules', '.bin', 'dualloop'), '--version'], { cwd: consumer });
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(stdout).toBe(`${version}\n`);
  });
});
