import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { loadManifest } from '../../src/manifest/load-manifest.js';
import { buildKernelOptions } from '../../src/manifest/manifest-kernel.js';
import { formatIssue } from '../../src/manifest/yaml-source.js';

const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

/** Writes `text` as manifest.yaml in a fresh directory and loads it from there. */
async function problems(text: string): Promise<string[]> {
  const directory = mkdtempSync(join(tmpdir(), 'dualloop-manifest-'));
  directories.push(directory);
  writeFileSync(join(directory, 'manifest.yaml'), text);
  const loaded = await loadManifest('manifest.yaml', directory);
  if (loaded.ok) return [];
  return loaded.issues.map(formatIssue);
}

describe('loadManifest', () => {
  it('points at the line of each problem in block and flow style, nested mappings and sequences', async () => {
    const text = [
      'name: lines', // 1
      'model:', // 2
      '  provider: scripted', // 3
      '  script: x.yaml', // 4
      'tasks:', // 5
      '  - first', // 6
      '  - id: second', // 7
      '    description: second task', // 8
      '    bounds:', // 9
      '      maxTurns: 0', // 10
      '  - { description: third, bounds: { maxToolCalls: two } }', // 11
      'bounds: { outer: { maxWorkflowSteps: 1.5 } }', // 12
      'onTaskStop: carry-on', // 13
    ].join('\n');
    expect(await problems(text)).toEqual([
      'tasks.1.bounds.maxTurns (line 10): must be > 0',
      'tasks.2.bounds.maxToolCalls (line 11): must be a number (got string)',
      'bounds.outer.maxWorkflowSteps (line 12): must be an integer (got number)',
      'onTaskStop (line 13): must be "halt" or "continue"',
    ]);
  });

  it('reports a missing field at its parent and each unknown field at its own line', async () => {
    expect(await problems('name: x\nmodel:\n  provider: openai\n  baseUrl: http://localhost/v1\ntasks: [a]\nstore: { file: a.db }\n')).toEqual([
      'model.name (line 3): required',
      'model.baseUrl (line 4): unknown field (did you mean "baseURL"?)',
      'store.path (line 6): required',
      'store.file (line 6): unknown field',
    ]);
  });

  it('places a field whose value starts on the next line at its key', async () => {
    const text = [
      'name: late', // 1
      'model:', // 2
      '  - scripted', // 3
      'tasks: [a]', // 4
      'taks:', // 5
      '  - b', // 6
      'bounds:', // 7
      '  inner:', // 8
      '    maxTurn:', // 9
      '      3', // 10
    ].join('\n');
    expect(await problems(text)).toEqual([
      'model (line 2): must be an object (got array)',
      'bounds.inner.maxTurn (line 9): unknown field (did you mean "maxTurns"?)',
      'taks (line 5): unknown field (did you mean "tasks"?)',
    ]);
  });

  it('refuses duplicate keys and reports syntax errors with their line', async () => {
    expect(await problems('name: a\nname: b\nmodel: { provider: scripted, script: x }\n')).toEqual([expect.stringMatching(/^\(document\) \(line 2\): Map keys must be unique/)]);
    expect(await problems('name: a\nmodel: { provider: scripted\n')).toEqual([expect.stringMatching(/^\(document\) \(line \d\): /)]);
  });

  it('reports an empty manifest, and a file that is not a manifest in one problem that says so', async () => {
    expect(await problems('')).toEqual(['(document): the manifest is empty']);
    expect(await problems('- a\n- b\n')).toEqual([
      '(document) (line 1): not a dualloop manifest: a manifest is a mapping of fields (name, model, tasks, …), this file holds a list; `dualloop init` writes a starter manifest',
    ]);
    const packageJson = JSON.stringify({ name: 'app', version: '1.0.0', type: 'module', scripts: { test: 'vitest' }, dependencies: {} }, null, 2);
    expect(await problems(packageJson)).toEqual([
      '(document) (line 1): not a dualloop manifest: it has no model and no tasks, and 4 of its 5 fields are not manifest fields (version, type, scripts, …); `dualloop init` writes a starter manifest',
    ]);
  });

  it('lists every missing field in one pass, tasks included, and keeps "did you mean" for a manifest with typos', async () => {
    expect(await problems('name: only\n')).toEqual(['model (line 1): required', 'tasks (line 1): required (or a `goal` for a plan strategy)']);
    expect(await problems('{}')).toEqual(['name (line 1): required', 'model (line 1): required', 'tasks (line 1): required (or a `goal` for a plan strategy)']);
    expect(await problems('name: typos\nmodle: { provider: scripted, script: x.yaml }\ntaks: [a]\n')).toEqual([
      'model (line 1): required',
      'tasks (line 1): required (or a `goal` for a plan strategy)',
      'modle (line 2): unknown field (did you mean "model"?)',
      'taks (line 3): unknown field (did you mean "tasks"?)',
    ]);
  });
});

describe('buildKernelOptions', () => {
  const example = fileURLToPath(new URL('../../examples/expense-report.yaml', import.meta.url));

  it('builds the example: its model, built-in and module tools, policy, bounds and tasks', async () => {
    const loaded = await loadManifest(example);
    if (!loaded.ok) throw new Error(loaded.issues.map(formatIssue).join('\n'));
    const options = await buildKernelOptions(loaded.value);
    if (!options.ok) throw new Error(options.issues.map(formatIssue).join('\n'));
    expect(options.value).toMatchObject({
      name: 'expense-report',
      model: { provider: 'scripted' },
      bounds: { inner: { maxTurns: 6, maxToolCalls: 10, maxRuntimeMs: 60000 }, outer: { maxWorkflowSteps: 10, maxTokens: 20000, maxCostUsd: 0.5 } },
      tasks: [{ id: 'total' }, { id: 'convert' }, { id: 'check', bounds: { maxTurns: 4 } }],
    });
    expect(options.value.tools?.map((tool) => tool.name)).toEqual(['calculator', 'read_file', 'list_files', 'exchange_rate']);
    expect(typeof options.value.policy?.checkToolCall).toBe('function');
  });

  it('lets command-line bounds win over the manifest, per-task bounds included', async () => {
    const loaded = await loadManifest(example);
    if (!loaded.ok) throw new Error('example invalid');
    const options = await buildKernelOptions(loaded.value, { maxTurns: 2, maxSessionRuntimeMs: 1000, maxCostUsd: 0.01 });
    if (!options.ok) throw new Error('options invalid');
    expect(options.value.bounds).toEqual({
      inner: { maxTurns: 2, maxToolCalls: 10, maxRuntimeMs: 60000 },
      outer: { maxWorkflowSteps: 10, maxSessionRuntimeMs: 1000, maxTokens: 20000, maxCostUsd: 0.01 },
    });
    expect(options.value.tasks?.[2]).toEqual({ id: 'check', description: expect.any(String), bounds: {} });
  });
});
