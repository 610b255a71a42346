import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createWorker, defineTool, submitRun, type KernelOptions, type SliceReport, type Worker } from 'dualloop';
import { scriptedModel, type ScriptCall, type ScriptStep } from 'dualloop/testing';
import { openStore, storedResult, usePlaces, workflowEnds } from './worker-support.js';

/* A graph workflow through pg-boss workers: one run, one worker at a time; a drain hands the run
 * back with its branches mid-run and another worker continues each of them. */

const place = usePlaces();
const started: Worker[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((worker) => worker.stop({ drain: false })));
});

function taskOf(call: ScriptCall): string {
  const first = call.messages.find((message) => message.role === 'user');
  return typeof first?.content === 'string' ? first.content : '';
}

function graphWorkflow(executions: Map<string, number>) {
  return (): KernelOptions => {
    const step = defineTool({
      name: 'step',
      description: 'One step of work.',
      parameters: z.object({ task: z.string(), turn: z.number() }),
      execute: ({ task, turn }) => {
        const key = `${task}/${turn}`;
        executions.set(key, (executions.get(key) ?? 0) + 1);
        return `did ${key}`;
      },
    });
    const model = scriptedModel((call): ScriptStep => {
      const task = taskOf(call);
      const turn = call.messages.filter((message) => message.role === 'assistant').length + 1;
      if (task.startsWith('branch') && turn <= 3) return { toolCalls: [{ name: 'step', id: `${task}-${turn}`, args: { task, turn } }], delayMs: 60 };
      return { text: `${task} done`, delayMs: 20 };
    });
    return { model, tools: [step], bounds: { outer: { maxParallelTasks: 3 } } };
  };
}

describe('graph workflows on workers', () => {
  it('a drained run continues each branch on another worker; no recorded tool runs twice', async () => {
    const where = place();
    const executions = new Map<string, number>();
    const workflows = { graph: graphWorkflow(executions) };
    const slices: SliceReport[] = [];
    const first = createWorker({ ...where, workflows, workerId: 'first', onSlice: (slice) => slices.push(slice) });
    started.push(first);
    await first.start();
    const tasks = [
      ...['a', 'b', 'c'].map((id) => ({ id, description: `branch ${id}`, dependsOn: [] as string[] })),
      { id: 'join', description: 'join {{a.output}}, {{b.output}}, {{c.output}}', dependsOn: ['a', 'b', 'c'] },
    ];
    const { runId } = await submitRun({ ...where, workflow: 'graph', tasks });
    const store = openStore(where);
    while ((await store.readEvents(runId)).filter((event) => event.type === 'checkpoint_saved').length < 2) await new Promise((resolve) => setTimeout(resolve, 20));
    await first.stop({ drain: true });
    expect(slices).toEqual([expect.objectContaining({ runId, workerId: 'first', outcome: 'suspended' })]);

    const second = createWorker({ ...where, workflows, workerId: 'second', onSlice: (slice) => slices.push(slice) });
    started.push(second);
    await second.start();
    const result = await storedResult(store, runId);
    expect(result.stop.reason).toBe('goal_achieved');
    expect(result.tasks.find((task) => task.taskId === 'join')?.output).toBe('join branch a done, branch b done, branch c done done');
    expect(await workflowEnds(store, runId)).toHaveLength(1);
    expect([...executions.keys()].sort()).toEqual(['a', 'b', 'c'].flatMap((id) => [1, 2, 3].map((turn) => `branch ${id}/${turn}`)));
    expect([...executions.values()].every((count) => count === 1)).toBe(true);
    await store.close();
  });
});
