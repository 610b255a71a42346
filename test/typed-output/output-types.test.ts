/**
 * The TS API infers each task's output type from its schema when the tasks are given as a literal
 * (docs/api.md, "Typed outputs"); results of tasks built at run time stay as usable as before.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { createKernel, runWorkflow, taskOutput, type TaskInput, type WorkflowResult, type WorkflowRun } from 'dualloop';
import { scriptedModel } from 'dualloop/testing';

describe('typed outputs in the TS API', () => {
  it('types taskOutput by the id of a task given as a literal', async () => {
    const kernel = createKernel({ model: scriptedModel([{ text: '{"n": 3}' }, { text: 'done' }]) });
    const run = kernel.start([
      { id: 'count', description: 'Count the files.', output: z.object({ n: z.number() }) },
      { id: 'note', description: 'Say something.' },
    ]);
    const result = await run.result;

    const count = taskOutput(result, 'count');
    expectTypeOf(count).toEqualTypeOf<{ n: number } | undefined>();
    expectTypeOf(taskOutput(result, 'note')).toEqualTypeOf<string | undefined>();
    // @ts-expect-error: no task has this id
    taskOutput(result, 'missing');
    expect(count).toEqual({ n: 3 });
    expect(taskOutput(result, 'note')).toBe('done');
  });

  it('keeps `as const` lists typed, with dependsOn, forEach and JSON Schema outputs', () => {
    const tasks = [
      { id: 'files', description: 'List the files.', output: z.object({ files: z.array(z.string()) }) },
      { id: 'size', description: 'Size of {{item}}.', forEach: 'files.output.files', output: z.number(), dependsOn: ['files'] },
      { id: 'raw', description: 'As JSON Schema.', output: { type: 'object' } },
    ] as const;
    const start = () => createKernel({ model: scriptedModel([]) }).start(tasks);
    type Result = Awaited<ReturnType<typeof start>['result']>;
    // The types only: a result without tasks has no outputs.
    const result = { tasks: [] } as unknown as Result;
    expect(taskOutput(result, 'files')).toBeUndefined();
    expectTypeOf(taskOutput(result, 'files')).toEqualTypeOf<{ files: string[] } | undefined>();
    expectTypeOf(taskOutput(result, 'size')).toEqualTypeOf<number[] | undefined>();
    expectTypeOf(taskOutput(result, 'raw')).toEqualTypeOf<unknown>();
  });

  it('leaves runs of tasks built at run time untyped, as before', async () => {
    const tasks: TaskInput[] = ['one'];
    const run: WorkflowRun = createKernel({ model: scriptedModel([{ text: 'ok' }]) }).start(tasks);
    const result: WorkflowResult = await run.result;
    expectTypeOf(taskOutput(result, 'task-1')).toEqualTypeOf<unknown>();
    expect(taskOutput(result, 'task-1')).toBe('ok');
    expect(taskOutput(result, 'task-9')).toBeUndefined();
  });

  it('types runWorkflow results the same way', async () => {
    const result = await runWorkflow({ model: scriptedModel([{ text: '["a", "b"]' }]), tasks: [{ id: 'names', description: 'Names.', output: z.array(z.string()) }] });
    expectTypeOf(taskOutput(result, 'names')).toEqualTypeOf<string[] | undefined>();
    expect(taskOutput(result, 'names')).toEqual(['a', 'b']);
  });
});
