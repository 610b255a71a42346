import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadManifest } from '../../src/manifest/load-manifest.js';
import { buildKernelOptions } from '../../src/manifest/manifest-kernel.js';
import type { BoundOverrides } from '../../src/manifest/bound-overrides.js';
import { manifestJsonSchema } from '../../src/manifest/manifest-json-schema.js';
import { formatIssue } from '../../src/manifest/yaml-source.js';

const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

/** Writes the manifest (and a one-step cassette) in a fresh directory, then loads and builds it. */
async function build(lines: readonly string[], overrides: BoundOverrides = {}) {
  const directory = mkdtempSync(join(tmpdir(), 'dualloop-graph-manifest-'));
  directories.push(directory);
  writeFileSync(join(directory, 'cassette.yaml'), '- text: done\n');
  writeFileSync(join(directory, 'manifest.yaml'), ['name: graph', 'model: { provider: scripted, script: ./cassette.yaml }', ...lines].join('\n'));
  const loaded = await loadManifest('manifest.yaml', directory);
  if (!loaded.ok) return { problems: loaded.issues.map(formatIssue) };
  const options = await buildKernelOptions(loaded.value, overrides);
  return options.ok ? { options: options.value } : { problems: options.issues.map(formatIssue) };
}

describe('a graph in a manifest', () => {
  it('passes output (a JSON Schema), dependsOn, forEach, forEachFailure and the graph bounds to the kernel', async () => {
    const built = await build([
      'tasks:', // 3
      '  - id: list', // 4
      '    description: List the files.', // 5
      '    output:', // 6
      '      type: object', // 7
      '      properties: { files: { type: array, items: { type: string } } }', // 8
      '      required: [files]', // 9
      '  - id: review', // 10
      '    description: Review {{item}}.', // 11
      '    forEach: list.output.files', // 12
      '    forEachFailure: collect', // 13
      '    bounds: { maxItems: 5, maxOutputRepairs: 0 }', // 14
      '  - id: report', // 15
      '    description: Summarise {{review.output}}.', // 16
      '    dependsOn: [review]', // 17
      'bounds:', // 18
      '  inner: { maxOutputRepairs: 3 }', // 19
      '  outer: { maxParallelTasks: 4 }', // 20
    ]);
    expect(built.problems).toBeUndefined();
    expect(built.options).toMatchObject({
      bounds: { inner: { maxOutputRepairs: 3 }, outer: { maxParallelTasks: 4 } },
      tasks: [
        { id: 'list', output: { type: 'object', properties: { files: { type: 'array', items: { type: 'string' } } }, required: ['files'] } },
        { id: 'review', forEach: 'list.output.files', forEachFailure: 'collect', bounds: { maxItems: 5, maxOutputRepairs: 0 } },
        { id: 'report', dependsOn: ['review'] },
      ],
    });
  });

  it('lets --max-parallel-tasks win over bounds.outer.maxParallelTasks', async () => {
    const built = await build(['tasks: [a, b]', 'bounds: { outer: { maxParallelTasks: 4, maxTokens: 900 } }'], { maxParallelTasks: 2 });
    expect(built.options?.bounds).toEqual({ outer: { maxParallelTasks: 2, maxTokens: 900 } });
  });

  it('refuses an output that is not a JSON Schema object, on its line, with the other field problems', async () => {
    const built = await build([
      'tasks:', // 3
      '  - id: a', // 4
      '    description: x', // 5
      '    output: just text', // 6
      '  - id: b', // 7
      '    description: y', // 8
      '    output: [files]', // 9
      '  - id: c', // 10
      '    description: z', // 11
      '    output: { type: objekt }', // 12
      '    forEachFailure: skip', // 13
      'bounds: { outer: { maxParallelTasks: 0 } }', // 14
    ]);
    expect(built.problems).toEqual([
      'tasks.0.output (line 6): must be a JSON Schema object, such as { type: object, properties: { … } } (got string)',
      'tasks.1.output (line 9): must be a JSON Schema object, such as { type: object, properties: { … } } (got a list)',
      'tasks.2.output (line 12): is not a JSON Schema this version can check (Unsupported type: objekt)',
      'tasks.2.forEachFailure (line 13): must be "fail" or "collect"',
      'bounds.outer.maxParallelTasks (line 14): must be > 0',
    ]);
  });

  it('describes the graph fields in the generated JSON Schema, output as an object', () => {
    const schema = manifestJsonSchema() as { properties: { tasks: { items: { anyOf: { properties?: Record<string, { type?: string; description?: string }> }[] } } } };
    const task = schema.properties.tasks.items.anyOf.find((branch) => branch.properties !== undefined)!.properties!;
    expect(task['output']).toMatchObject({ type: 'object', description: expect.stringContaining('JSON Schema') });
    for (const field of ['dependsOn', 'forEach', 'forEachFailure']) expect(task[field]?.description, field).toEqual(expect.any(String));
  });
});
