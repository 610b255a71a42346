import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createKernel, type KernelEvent } from 'dualloop';
import { scriptedModel, type ScriptCall, type ScriptStep } from 'dualloop/testing';

function taskOf(call: ScriptCall): string {
  const first = call.messages.find((message) => message.role === 'user');
  return typeof first?.content === 'string' ? first.content : '';
}

const Files = z.object({ files: z.array(z.object({ path: z.string() })) });

describe('fan-out (forEach)', () => {
  it('runs one task per item, <taskId>[i], at most maxParallelTasks at once; the output is the items’ outputs in order', async () => {
    let running = 0;
    let most = 0;
    const model = scriptedModel((call): ScriptStep => {
      const task = taskOf(call);
      if (task === 'list the files') return { text: JSON.stringify({ files: ['a.ts', 'b.ts', 'c.ts', 'd.ts'].map((path) => ({ path })) }) };
      running += 1;
      most = Math.max(most, running);
      setTimeout(() => (running -= 1), 20);
      return { text: JSON.stringify({ path: task.slice('review '.length), lines: task.length }), delayMs: 20 };
    });
    const kernel = createKernel({ model, bounds: { outer: { maxParallelTasks: 2 } } });
    const run = kernel.start([
      { id: 'list', description: 'list the files', output: Files },
      { id: 'review', description: 'review {{item.path}}', forEach: 'list.output.files', output: z.object({ path: z.string(), lines: z.number() }) },
    ]);
    const events: KernelEvent[] = [];
    for await (const event of run) events.push(event);
    const result = await run.result;
    expect(result.stop.reason).toBe('goal_achieved');
    const review = result.tasks.find((task) => task.taskId === 'review')!;
    expect(review.output).toEqual(['a.ts', 'b.ts', 'c.ts', 'd.ts'].map((path) => ({ path, lines: `review ${path}`.length })));
    expect(review.stop).toMatchObject({ reason: 'goal_achieved', detail: 'all 4 items ended' });
    expect(result.tasks.filter((task) => task.taskId.startsWith('review[')).map((task) => task.taskId).sort()).toEqual(['review[0]', 'review[1]', 'review[2]', 'review[3]']);
    expect(most).toBe(2);
    expect(result.metrics.workflowSteps).toBe(5);
    const items = events.filter((event) => event.type === 'task_start' && event.taskId.startsWith('review['));
    expect(items).toHaveLength(4);
  });

  it('ends the task invalid_output, naming the count, when there are more items than maxItems', async () => {
    const model = scriptedModel((call): ScriptStep => (taskOf(call) === 'list' ? { text: JSON.stringify({ files: [{ path: 'a' }, { path: 'b' }, { path: 'c' }] }) } : { text: '{}' }));
    const kernel = createKernel({ model });
    const result = await kernel.start([
      { id: 'list', description: 'list', output: Files },
      { id: 'review', description: 'review {{item.path}}', forEach: 'list.output.files', bounds: { maxItems: 2 } },
      { id: 'after', description: 'after', dependsOn: ['review'] },
    ]).result;
    const stops = Object.fromEntries(result.tasks.map((task) => [task.taskId, task.stop]));
    expect(stops.review).toMatchObject({ reason: 'invalid_output', detail: 'task "review": forEach "list.output.files" has 3 items, more than maxItems=2', bound: { name: 'maxItems', limit: 2, value: 3 } });
    expect(stops.after?.reason).toBe('dependency_failed');
    expect(result.stop.reason).toBe('invalid_output');
  });

  it('fails the task on one failed item by default, and with forEachFailure collect keeps the others', async () => {
    const script = (call: ScriptCall): ScriptStep => {
      const task = taskOf(call);
      if (task === 'list') return { text: JSON.stringify({ files: [{ path: 'good' }, { path: 'bad' }, { path: 'fine' }] }) };
      return task.endsWith('bad') ? { toolCalls: [{ name: 'nothing' }] } : { text: `ok ${task}` };
    };
    const tasks = (failure: 'fail' | 'collect') => [
      { id: 'list', description: 'list', output: Files },
      { id: 'review', description: 'review {{item.path}}', forEach: 'list.output.files', forEachFailure: failure },
      { id: 'after', description: 'after {{review.output}}', dependsOn: ['review'] },
    ];
    const failed = await createKernel({ model: scriptedModel(script), bounds: { inner: { maxTurns: 1 } } }).start(tasks('fail')).result;
    const failedStops = Object.fromEntries(failed.tasks.map((task) => [task.taskId, task.stop.reason]));
    expect(failedStops).toMatchObject({ review: 'max_turns', after: 'dependency_failed' });
    expect(failed.tasks.find((task) => task.taskId === 'review')!.stop.detail).toBe('item review[1] stopped: turn 1 reached maxTurns=1');
    expect(failed.tasks.some((task) => task.taskId === 'review[2]')).toBe(false);

    const collected = await createKernel({ model: scriptedModel(script), bounds: { inner: { maxTurns: 1 } } }).start(tasks('collect')).result;
    const review = collected.tasks.find((task) => task.taskId === 'review')!;
    expect(review.stop.reason).toBe('goal_achieved');
    expect(review.output).toEqual(['ok review good', null, 'ok review fine']);
    expect(review.failedItems).toEqual([{ taskId: 'review[1]', stop: expect.objectContaining({ reason: 'max_turns' }) }]);
    expect(collected.tasks.find((task) => task.taskId === 'after')!.stop.reason).toBe('planner_stopped');
  });
});
