import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { createKernel, type WorkflowResult } from 'dualloop';
import { memoryStore } from 'dualloop/testing';
import { loadManifest } from '../../src/manifest/load-manifest.js';
import { buildKernelOptions } from '../../src/manifest/manifest-kernel.js';
import { formatIssue } from '../../src/manifest/yaml-source.js';

const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

/** A manifest (fields as an object) and its cassette (an object, or YAML text) in a fresh directory. */
async function prepare(fields: Record<string, unknown>, cassette: object | string) {
  const directory = mkdtempSync(join(tmpdir(), 'dualloop-cassette-by-task-'));
  directories.push(directory);
  writeFileSync(join(directory, 'cassette.yaml'), typeof cassette === 'string' ? cassette : stringify(cassette));
  writeFileSync(join(directory, 'manifest.yaml'), stringify({ name: 'by-task', model: { provider: 'scripted', script: './cassette.yaml' }, ...fields }));
  const loaded = await loadManifest('manifest.yaml', directory);
  if (!loaded.ok) return { problems: loaded.issues.map(formatIssue) };
  const options = await buildKernelOptions(loaded.value);
  return options.ok ? { options: options.value } : { problems: options.issues.map(formatIssue) };
}

async function run(fields: Record<string, unknown>, cassette: object): Promise<WorkflowResult> {
  const prepared = await prepare(fields, cassette);
  if (prepared.options === undefined) throw new Error(prepared.problems.join('\n'));
  return createKernel({ ...prepared.options, store: memoryStore() }).start().result;
}

const outputOf = (result: WorkflowResult, taskId: string) => result.tasks.find((task) => task.taskId === taskId)?.output;

describe('a cassette by task', () => {
  it('answers each task from its own list in its own call order, however parallel tasks interleave', async () => {
    const result = await run(
      {
        tasks: [
          { id: 'slow', description: 'first', dependsOn: [] },
          { id: 'fast', description: 'second', dependsOn: [] },
        ],
        tools: { builtin: ['calculator'] },
        bounds: { outer: { maxParallelTasks: 2 } },
      },
      {
        // `slow` is listed first but answers last: an answer in call order would go to the wrong task.
        slow: [{ text: 'slow 1', toolCalls: [{ name: 'calculator', args: { expression: '1 + 1' } }], delayMs: 120 }, { text: 'slow done', delayMs: 60 }],
        fast: [{ text: 'fast 1', toolCalls: [{ name: 'calculator', args: { expression: '2 + 2' } }] }, { text: 'fast done' }],
      },
    );
    expect(result.stop.reason).toBe('goal_achieved');
    expect(outputOf(result, 'slow')).toBe('slow done');
    expect(outputOf(result, 'fast')).toBe('fast done');
    // Tool-call ids come from the task and turn, not from the run's call index (which depends on timing).
    const firstCallId = (taskId: string) => result.tasks.find((task) => task.taskId === taskId)?.turns[0]?.toolCalls[0]?.id;
    expect([firstCallId('slow'), firstCallId('fast')]).toEqual(['call_slow_1_0', 'call_fast_1_0']);
  });

  it('plays a fan-out item its own key when it has one, else its task’s list from the start', async () => {
    const result = await run(
      {
        tasks: [
          { id: 'list', description: 'list', output: { type: 'object', properties: { names: { type: 'array', items: { type: 'string' } } }, required: ['names'] } },
          { id: 'greet', description: 'greet {{item}}', forEach: 'list.output.names' },
        ],
        bounds: { outer: { maxParallelTasks: 3 } },
      },
      {
        list: [{ text: '{"names": ["ada", "bo", "cy"]}' }],
        greet: [{ text: 'hello' }],
        'greet[1]': [{ text: 'hi bo' }],
      },
    );
    expect(result.stop.reason).toBe('goal_achieved');
    expect(outputOf(result, 'greet')).toEqual(['hello', 'hi bo', 'hello']);
  });

  it('gives a wrap-up call the step after the task’s last turn', async () => {
    const result = await run(
      { tasks: ['count'], tools: { builtin: ['calculator'] }, bounds: { inner: { maxTurns: 1 } }, wrapUpOnBound: true },
      { 'task-1': [{ toolCalls: [{ name: 'calculator', args: { expression: '6 * 7' } }] }, { text: 'It is 42.' }] },
    );
    expect(result.stop.reason).toBe('max_turns');
    expect(result.tasks[0]).toMatchObject({ turnCount: 1, output: 'It is 42.' });
  });

  it('ends a task it has no answer for with error, naming the task and the call', async () => {
    const result = await run({ tasks: [{ id: 'a', description: 'x', dependsOn: [] }, { id: 'b', description: 'y', dependsOn: [] }], tools: { builtin: ['calculator'] } }, {
      a: [{ text: 'fine' }],
      b: [{ toolCalls: [{ name: 'calculator', args: { expression: '1' } }] }],
    });
    expect(outputOf(result, 'a')).toBe('fine');
    const b = result.tasks.find((task) => task.taskId === 'b')!;
    expect(b.stop).toMatchObject({ reason: 'error' });
    expect(b.stop.detail).toContain('script exhausted: the cassette has 1 answer for "b", none for call 2 of task "b"');
  });

  it('reports bad steps and keys that name no task in one pass, each on its cassette line', async () => {
    const cassette = [
      'extract:', // 1
      '  - txt: one', // 2
      'reveiw:', // 3
      '  - text: two', // 4
      'extract[0]:', // 5
      '  - text: three', // 6
      'greet[2]: []', // 7
    ].join('\n');
    const prepared = await prepare(
      {
        tasks: [
          { id: 'extract', description: 'x' },
          { id: 'review', description: 'y' },
          { id: 'greet', description: 'hi {{item}}', forEach: 'extract.output' },
        ],
      },
      cassette,
    );
    expect(prepared.problems).toEqual([
      'extract.0.txt (line 2): unknown field (did you mean "text"?)',
      'greet[2] (line 7): must hold at least one step',
      'reveiw (line 3): no task "reveiw" in the manifest (did you mean "review"?)',
      'extract[0] (line 5): task "extract" has no forEach, so it has no item extract[0]',
    ]);
  });

  it('refuses a cassette by task for a model that plans', async () => {
    const prepared = await prepare({ strategy: 'plan_execute', goal: 'Plan a trip.' }, { 'step-1': [{ text: 'ok' }] });
    expect(prepared.problems).toEqual([
      "model.script (line 4): ./cassette.yaml: a cassette by task answers the tasks' calls only, and strategy plan_execute plans with this model (no planner: block): give the planner a cassette in call order (a list)",
    ]);
  });

  it('keeps the list form: one answer per call, in the run’s call order', async () => {
    const result = await run({ tasks: ['a', 'b'] }, [{ text: 'first' }, { text: 'second' }]);
    expect(result.tasks.map((task) => task.output)).toEqual(['first', 'second']);
  });
});
