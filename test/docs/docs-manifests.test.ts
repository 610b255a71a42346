import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ROOT, runCli } from '../cli/cli-process.js';
import { codeBlocks, type CodeBlock } from '../support/markdown-blocks.js';

/*
 * The manifests the docs show: every ```yaml block of README.md and docs/*.md that is a whole
 * manifest (it has `name` and `model`) must pass `dualloop validate`, next to a copy of examples/
 * (its paths are those of the example it was taken from). docs/workflows.md's graph must be
 * examples/design-review.yaml itself, which test/examples runs, and docs/delegation.md's agents
 * examples/research-writer.yaml, which test/cli/agents-manifest.test.ts runs. Fragments (one block
 * of a manifest, a cassette) are not manifests and are not validated here.
 */

const FILES = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).sort().map((name) => `docs/${name}`)];
const YAML_BLOCKS = FILES.flatMap((file) => codeBlocks(ROOT, file)).filter((block) => block.language === 'yaml' || block.language === 'yml');
const where = (block: CodeBlock) => `${block.file}:${block.line}`;

function isManifest(block: CodeBlock): boolean {
  const value = parse(block.code) as unknown;
  return typeof value === 'object' && value !== null && 'name' in value && 'model' in value;
}

// A copy of examples/ whose tools module finds `dualloop` (this repository) and `zod`, as in a user's project.
const examples = mkdtempSync(join(tmpdir(), 'dualloop-doc-manifests-'));
cpSync(join(ROOT, 'examples'), examples, { recursive: true });
mkdirSync(join(examples, 'node_modules'));
symlinkSync(ROOT, join(examples, 'node_modules', 'dualloop'), 'dir');
symlinkSync(join(ROOT, 'node_modules', 'zod'), join(examples, 'node_modules', 'zod'), 'dir');
afterAll(() => rmSync(examples, { recursive: true, force: true }));

describe('the manifests of README.md and docs/', () => {
  const manifests = YAML_BLOCKS.filter(isManifest);

  it('are found, the graph of docs/workflows.md among them', () => {
    expect(manifests.map((block) => block.file)).toContain('docs/workflows.md');
  });

  it.each(manifests.map((block, index) => ({ name: where(block), block, index })))('$name passes dualloop validate', async ({ block, index }) => {
    const file = `doc-manifest-${index}.yaml`;
    writeFileSync(join(examples, file), block.code);
    const result = await runCli(['validate', file], { cwd: examples });
    expect(result.stderr, `${where(block)}: the manifest does not validate`).toBe('');
    expect(result.code).toBe(0);
  });

  it('docs/delegation.md shows examples/research-writer.yaml as it is', () => {
    const shown = YAML_BLOCKS.filter((block) => block.file === 'docs/delegation.md' && isManifest(block)).map((block) => block.code);
    expect(shown).toEqual([readFileSync(join(ROOT, 'examples/research-writer.yaml'), 'utf8')]);
  });

  it('docs/workflows.md shows examples/design-review.yaml as it is, and answers from its cassette', () => {
    const blocks = YAML_BLOCKS.filter((block) => block.file === 'docs/workflows.md');
    expect(blocks.find(isManifest)?.code).toBe(readFileSync(join(ROOT, 'examples/design-review.yaml'), 'utf8'));
    const cassette = parse(readFileSync(join(ROOT, 'examples/design-review.cassette.yaml'), 'utf8')) as Record<string, unknown>;
    const shown = blocks.filter((block) => !isManifest(block)).map((block) => parse(block.code) as Record<string, unknown>);
    expect(shown).toHaveLength(1);
    expect(cassette).toMatchObject(shown[0]!);
  });
});
