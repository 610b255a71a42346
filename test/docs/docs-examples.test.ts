import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keepsAStoreFile, printsItsStop, runsAWorkflow, stopLines } from '../support/docs-block-output.js';
import { typescriptBlocks, type CodeBlock } from '../support/markdown-blocks.js';
import { startOpenAICompatibleServer, textAnswer, type OpenAICompatibleServer } from '../support/openai-compatible-server.js';
import { compileInConsumer, packedConsumer } from '../support/packed-package.js';

/*
 * Every TypeScript block of README.md and docs/*.md is a complete program (ADR 0094): each is
 * compiled, as its own module, against the packed package in the strict consumer project, then run
 * offline in a fresh temporary directory. OpenAI-compatible models are answered by a local server
 * (OPENAI_BASE_URL); scripted models need nothing. A block fenced ```ts no-run is typechecked but
 * not run: only for what cannot run offline (README's Development section says so). A block that
 * runs a workflow prints `${stop.reason} — ${stop.detail}` (ADR 0412,
 * test/support/docs-block-output.ts); a block that leaves files in its directory (a SQLite store)
 * runs there a second time, as a reader who runs it twice in one folder would. A failure names the
 * file and the line of the block's opening fence. Relative links must point at files that exist.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const NODE = join(ROOT, 'node_modules', '.bin', 'node');
const run = promisify(execFile);
const BLOCKS = typescriptBlocks(ROOT);
const fileOf = (index: number) => `block-${String(index).padStart(2, '0')}`;
const where = (block: CodeBlock) => `${block.file}:${block.line}`;

let server: OpenAICompatibleServer;
let compiled: { readonly dir: string; readonly diagnostics: ReadonlyMap<number, string[]> };

beforeAll(async () => {
  server = await startOpenAICompatibleServer();
  const consumer = await packedConsumer();
  const files = Object.fromEntries(BLOCKS.map((block, index) => [`${fileOf(index)}.ts`, block.code]));
  const { dir, compiled: result } = await compileInConsumer(consumer, files, importedPackages(consumer));
  const diagnostics = new Map<number, string[]>();
  for (const line of result.output.split('\n')) {
    const match = /block-(\d+)\.ts\((\d+),(\d+)\): (.*)$/.exec(line);
    if (match === null) continue;
    const index = Number(match[1]);
    const block = BLOCKS[index]!;
    diagnostics.set(index, [...(diagnostics.get(index) ?? []), `${block.file}:${block.line + Number(match[2])}:${match[3]} ${match[4]}`]);
  }
  if (result.code !== 0 && diagnostics.size === 0) throw new Error(`tsc failed on the docs' blocks:\n${result.output}`);
  compiled = { dir, diagnostics };
}, 180_000);
afterAll(() => server?.close());

/** Runs the compiled block in `cwd`, offline: it must exit 0 and, when it runs a workflow, print a stop line. */
async function expectToRunAndReport(block: CodeBlock, index: number, cwd: string, how: string): Promise<void> {
  server.enqueue(...Array.from({ length: 30 }, () => textAnswer(['Done.'])));
  const env = { ...process.env, OPENAI_API_KEY: 'test-key', OPENAI_BASE_URL: server.baseURL, NO_COLOR: '1' };
  const outcome = await run(NODE, [join(compiled.dir, 'out', `${fileOf(index)}.js`)], { cwd, env, timeout: 15_000 }).then(
    ({ stdout }) => ({ stdout, failure: undefined }),
    (error: { code?: number | string; signal?: string; stdout?: string; stderr?: string }) => ({
      stdout: error.stdout ?? '',
      failure: `exit ${error.code ?? error.signal}\n${error.stderr ?? ''}${error.stdout ?? ''}`,
    }),
  );
  expect(outcome.failure, `${where(block)}: the \`\`\`ts block fails when run ${how}, offline: ${outcome.failure}`).toBeUndefined();
  if (!runsAWorkflow(block)) return;
  expect(stopLines(outcome.stdout), `${where(block)}: run ${how}, the block printed no line "<stop reason> — <detail>":\n${outcome.stdout}`).not.toEqual([]);
}

/** Packages the blocks import that the consumer does not have (pino, an AI SDK provider, OpenTelemetry…). */
function importedPackages(consumer: string): string[] {
  const names = new Set(BLOCKS.flatMap((block) => [...block.code.matchAll(/from '((?:@[\w.-]+\/)?[\w.-]+)[^']*'/g)].map((match) => match[1]!)));
  return [...names].filter((name) => name !== 'dualloop' && !name.startsWith('node:') && !existsSync(join(consumer, 'node_modules', name)));
}

describe('the TypeScript examples of README.md and docs/', () => {
  it('are found', () => {
    expect(BLOCKS.length).toBeGreaterThan(10);
    expect(BLOCKS.filter(runsAWorkflow).length).toBeGreaterThan(10);
    expect(BLOCKS.filter(keepsAStoreFile).map((block) => block.file)).toContain('docs/durability.md');
  });

  it.each(BLOCKS.map((block, index) => ({ name: where(block), block, index })))('$name compiles, runs and prints how it stopped', async ({ block, index }) => {
    const errors = compiled.diagnostics.get(index) ?? [];
    expect(errors, `${where(block)}: the \`\`\`ts block does not compile against the packed package:\n${errors.join('\n')}`).toEqual([]);
    if (runsAWorkflow(block)) expect(printsItsStop(block), `${where(block)}: the block runs a workflow but does not print \`\${stop.reason} — \${stop.detail}\``).toBe(true);
    if (block.annotations.includes('no-run')) return;
    const cwd = mkdtempSync(join(tmpdir(), 'dualloop-doc-'));
    try {
      writeFileSync(join(cwd, 'package.json'), '{ "type": "module" }\n');
      await expectToRunAndReport(block, index, cwd, 'in a fresh directory');
      const left = readdirSync(cwd).filter((name) => name !== 'package.json');
      if (keepsAStoreFile(block)) expect(left, `${where(block)}: the block opens a SQLite file but left nothing in its directory`).not.toEqual([]);
      if (left.length > 0) await expectToRunAndReport(block, index, cwd, `a second time in the same directory (holding ${left.join(', ')})`);
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  }, 40_000);

  it('link only to files in the repository', () => {
    const files = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];
    const broken = files.flatMap((file) =>
      [...readFileSync(join(ROOT, file), 'utf8').matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)]
        .map((match) => match[1]!)
        .filter((target) => !/^[a-z]+:/.test(target) && !existsSync(join(ROOT, dirname(file), target)))
        .map((target) => `${file}: ${target}`),
    );
    expect(broken, 'links to files that are not in the repository').toEqual([]);
    const design = files.filter((file) => readFileSync(join(ROOT, file), 'utf8').includes('DESIGN.md'));
    expect(design, 'DESIGN.md is not in the repository: cite docs/ or ADR/ instead').toEqual([]);
  });
});
