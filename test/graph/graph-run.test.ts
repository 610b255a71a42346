import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createKernel, defineTool, memoryStore, type KernelEvent } from 'dualloop';
import { scriptedModel, type ScriptCall, type ScriptStep } from 'dualloop/testing';

/** The task's own words: the first user message of the call. */
function taskOf(call: ScriptCall): string {
  const first = call.messages.find((message) => message.role === 'user');
  return typeof first?.content === 'string' ? first.content : '';
}

describe('a graph workflow', () => {
  it('runs independent tasks at once, up to maxParallelTasks, and each one once', async () => {
    let running = 0;
    let most = 0;
    const model = scriptedModel((call): ScriptStep => {
      running += 1;
      most = Math.max(most, running);
      setTimeout(() => (running -= 1), 40);
      return { text: `done: ${taskOf(call)}`, delayMs: 40 };
    });
    const kernel = createKernel({ model, bounds: { outer: { maxParallelTasks: 3 } } });
    const tasks = ['a', 'b', 'c', 'd', 'e'].map((id) => ({ id, description: `task ${id}`, dependsOn: [] }));
    const result = await kernel.start(tasks).result;
    expect(result.stop).toMatchObject({ reason: 'goal_achieved', detail: 'all 5 tasks finished' });
    expect(result.tasks.map((task) => task.taskId).sort()).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(most).toBe(3);
    expect(model.calls).toHaveLength(5);
    expect(result.metrics.workflowSteps).toBe(5);
  });

  it('starts a task only after its dependencies, with their outputs in its description', async () => {
    const order: string[] = [];
    const model = scriptedModel((call): ScriptStep => {
      const task = taskOf(call);
      order.push(task);
      return { text: task.startsWith('extract') ? 'three facts' : `report on ${task}` };
    });
    const kernel = createKernel({ model, bounds: { outer: { maxParallelTasks: 4 } } });
    const result = await kernel.start([
      { id: 'extract', description: 'extract facts' },
      { id: 'left', description: 'analyse {{extract.output}} from the left', dependsOn: ['extract'] },
      { id: 'right', description: 'analyse {{extract.output}} from the right', dependsOn: ['extract'] },
      { id: 'report', description: 'merge {{left.output}} and {{right.output}}', dependsOn: ['left', 'right'] },
    ]).result;
    expect(result.stop.reason).toBe('goal_achieved');
    expect(order[0]).toBe('extract facts');
    expect(order.slice(1, 3).sort()).toEqual(['analyse three facts from the left', 'analyse three facts from the right']);
    expect(order[3]).toBe('merge report on analyse three facts from the left and report on analyse three facts from the right');
    expect(result.tasks.find((task) => task.taskId === 'report')!.description).toBe(order[3]);
  });

  it('stops the tasks that wait for a failed one with dependency_failed; independent branches go on', async () => {
    const model = scriptedModel((call): ScriptStep => (taskOf(call) === 'loops' ? { toolCalls: [{ name: 'nothing' }] } : { text: 'ok' }));
    const kernel = createKernel({ model, bounds: { inner: { maxTurns: 2 }, outer: { maxParallelTasks: 2 } } });
    const run = kernel.start([
      { id: 'a', description: 'loops', dependsOn: [] },
      { id: 'b', description: 'after a', dependsOn: ['a'] },
      { id: 'c', description: 'alone', dependsOn: [] },
      { id: 'd', description: 'after c', dependsOn: ['c'] },
    ]);
    const events: KernelEvent[] = [];
    for await (const event of run) events.push(event);
    const result = await run.result;
    const stops = Object.fromEntries(result.tasks.map((task) => [task.taskId, task.stop.reason]));
    expect(stops).toEqual({ a: 'max_turns', b: 'dependency_failed', c: 'planner_stopped', d: 'planner_stopped' });
    expect(result.tasks.find((task) => task.taskId === 'b')!.stop.detail).toBe('dependency "a" stopped max_turns: turn 2 reached maxTurns=2');
    // The workflow names the cause, not its consequence.
    expect(result.stop).toMatchObject({ reason: 'max_turns', detail: 'task "a" stopped: turn 2 reached maxTurns=2' });
    const ends = events.filter((event) => event.type === 'task_end').map((event) => (event as { taskId: string }).taskId);
    expect(ends.sort()).toEqual(['a', 'b', 'c', 'd']);
    expect(events.filter((event) => event.type === 'task_start')).toHaveLength(4);
  });

  it('keeps a list exactly a list: one task at a time, halting on the first early stop', async () => {
    const model = scriptedModel([{ toolCalls: [{ name: 'x' }] }, { toolCalls: [{ name: 'y' }] }]);
    const kernel = createKernel({ model, bounds: { inner: { maxTurns: 1 }, outer: { maxParallelTasks: 4 } } });
    const result = await kernel.start(['one', 'two']).result;
    expect(result.tasks).toHaveLength(1);
    expect(result.stop.reason).toBe('max_turns');
  });

  it('resumes a graph from its store: finished tasks are not run again', async () => {
    const store = memoryStore();
    let calls = 0;
    const model = scriptedModel((call): ScriptStep => {
      calls += 1;
      const answered = call.messages.at(-1)?.role === 'tool';
      return taskOf(call) === 'parked' && !answered ? { toolCalls: [{ name: 'deploy', id: 'deploy-1' }] } : { text: 'ok' };
    });
    const kernel = createKernel({
      model,
      store,
      tools: [defineTool({ name: 'deploy', description: 'Deploys.', parameters: z.object({}), execute: () => 'deployed' })],
      policy: { checkToolCall: () => ({ decision: 'require_approval', reason: 'deploys need a human' }) },
      bounds: { outer: { maxParallelTasks: 2 } },
    });
    const first = await kernel.start([{ id: 'p', description: 'parked', dependsOn: [] }, { id: 'q', description: 'quick', dependsOn: [] }, { id: 'r', description: 'after p', dependsOn: ['p'] }], { runId: 'graph-park' }).result;
    expect(first.stop.reason).toBe('awaiting_approval');
    expect(first.tasks.map((task) => [task.taskId, task.stop.reason])).toEqual(expect.arrayContaining([['p', 'awaiting_approval'], ['q', 'planner_stopped']]));
    expect(calls).toBe(2);
    const resumed = await (await kernel.resume('graph-park', { approvals: { 'deploy-1': 'approve' } })).result;
    expect(resumed.stop.reason).toBe('goal_achieved');
    expect(resumed.tasks.map((task) => task.taskId).sort()).toEqual(['p', 'q', 'r']);
    // q ran once, before the park; p continued from its parked turn (no new first call); r ran.
    expect(calls).toBe(4);
  });
});

describe('a fork of a graph run', () => {
  it('runs the forked task and everything downstream again, and takes every other result from the record', async () => {
    const store = memoryStore();
    const answers: Record<string, number> = {};
    const model = scriptedModel((call): ScriptStep => {
      const task = taskOf(call);
      answers[task] = (answers[task] ?? 0) + 1;
      return { text: `${task} #${answers[task]}` };
    });
    const kernel = createKernel({ model, store, bounds: { outer: { maxParallelTasks: 2 } } });
    const source = await kernel.start(
      [
        { id: 'a', description: 'a', dependsOn: [] },
        { id: 'b', description: 'b after {{a.output}}', dependsOn: ['a'] },
        { id: 'c', description: 'c alone', dependsOn: [] },
        { id: 'd', description: 'd after {{b.output}}', dependsOn: ['b'] },
      ],
      { runId: 'graph-source' },
    ).result;
    expect(source.stop.reason).toBe('goal_achieved');
    const fork = await kernel.fork('graph-source', { at: { task: 'b' }, runId: 'graph-fork', edit: { message: 'be brief' } });
    const events: KernelEvent[] = [];
    for await (const event of fork) events.push(event);
    const forked = await fork.result;
    expect(forked.stop.reason).toBe('goal_achieved');
    const start = events.find((event) => event.type === 'workflow_start');
    expect(start).toMatchObject({ forkOf: { runId: 'graph-source', at: { task: 2 }, rerun: ['b', 'd'] } });
    // b and d ran again (their second answers); a and c are the source's.
    const outputs = Object.fromEntries(forked.tasks.map((task) => [task.taskId, task.output]));
    expect(outputs).toEqual({ a: 'a #1', c: 'c alone #1', b: 'b after a #1 #2', d: 'd after b after a #1 #2 #1' });
    // The edit's message waits in the steering queue and reaches the first task that starts.
    const firstOfFork = model.calls.find((call) => call.messages.some((message) => message.role === 'user' && message.content === 'be brief'));
    expect(taskOf(firstOfFork!)).toBe('b after a #1');
    expect(events.filter((event) => event.type === 'task_start').map((event) => (event as { taskId: string }).taskId)).toEqual(['b', 'd']);
    expect(forked.metrics.workflowSteps).toBe(4);
  });
});

describe('one set of bounds across branches', () => {
  it('stops every running branch once the workflow budget is spent, within one call per branch', async () => {
    const model = scriptedModel((): ScriptStep => ({ toolCalls: [{ name: 'missing' }], usage: { inputTokens: 8, outputTokens: 2 }, delayMs: 2 }));
    const kernel = createKernel({ model, loopDetection: false, bounds: { inner: { maxTurns: 50 }, outer: { maxParallelTasks: 3, maxTokens: 50 } } });
    const result = await kernel.start(['x', 'y', 'z', 'w'].map((id) => ({ id, description: `loop ${id}`, dependsOn: [] }))).result;
    expect(result.stop.reason).toBe('budget_exhausted');
    const spent = result.metrics.inputTokens + result.metrics.outputTokens;
    expect(spent).toBeGreaterThanOrEqual(50);
    expect(spent).toBeLessThanOrEqual(50 + 3 * 10);
    expect(result.tasks.map((task) => task.stop.reason)).toEqual(['budget_exhausted', 'budget_exhausted', 'budget_exhausted']);
    // The fourth task never started: the budget was spent before a slot was free.
    expect(result.tasks.map((task) => task.taskId).sort()).toEqual(['x', 'y', 'z']);
  });

  it('cancels every running branch on abort, and a resume continues each of them', async () => {
    const store = memoryStore();
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const model = scriptedModel((call): ScriptStep => {
      const turn = call.messages.filter((message) => message.role === 'assistant').length;
      return turn === 0 ? { toolCalls: [{ name: 'wait', id: `${taskOf(call)}-1` }] } : { text: `${taskOf(call)} done` };
    });
    const wait = defineTool({ name: 'wait', description: 'Waits.', parameters: z.object({}), execute: async () => (await gate, 'waited') });
    const kernel = createKernel({ model, store, tools: [wait], bounds: { outer: { maxParallelTasks: 3 } } });
    const run = kernel.start(['p', 'q', 'r'].map((id) => ({ id, description: id, dependsOn: [] })), { runId: 'graph-abort' });
    for await (const event of run) {
      if (event.type === 'tool_execution_start' && event.toolCallId === 'r-1') break;
    }
    run.abort('enough');
    const stopped = await run.result;
    release();
    expect(stopped.stop.reason).toBe('context_canceled');
    expect(stopped.tasks.map((task) => task.stop.reason)).toEqual(['context_canceled', 'context_canceled', 'context_canceled']);
    const resumed = await (await kernel.resume('graph-abort')).result;
    expect(resumed.stop.reason).toBe('goal_achieved');
    expect(Object.fromEntries(resumed.tasks.map((task) => [task.taskId, task.output]))).toEqual({ p: 'p done', q: 'q done', r: 'r done' });
  });
});

describe('steering a graph', () => {
  it('delivers a message to the named task alone, or to every running task', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const wait = defineTool({ name: 'wait', description: 'Waits.', parameters: z.object({}), execute: async () => (await gate, 'waited') });
    const model = scriptedModel((call): ScriptStep => {
      const turn = call.messages.filter((message) => message.role === 'assistant').length;
      return turn === 0 ? { toolCalls: [{ name: 'wait', id: `${taskOf(call)}-1` }] } : { text: `${taskOf(call)} done` };
    });
    const kernel = createKernel({ model, tools: [wait], bounds: { outer: { maxParallelTasks: 2 } } });
    const run = kernel.start([{ id: 'left', description: 'left', dependsOn: [] }, { id: 'right', description: 'right', dependsOn: [] }]);
    let waiting = 0;
    for await (const event of run) {
      if (event.type === 'tool_execution_start') waiting += 1;
      if (waiting === 2) break;
    }
    run.steer('only for the left one', { taskId: 'left' });
    run.steer('for everyone');
    expect(() => run.steer('nobody', { taskId: 'middle' })).toThrow(/"middle" is not a task of run/);
    release();
    await run.result;
    const steeredBy = (task: string) =>
      model.calls
        .filter((call) => taskOf(call) === task)
        .flatMap((call) => call.messages)
        .filter((message) => message.role === 'user' && message.source === 'steering')
        .map((message) => message.content);
    expect([...new Set(steeredBy('left'))]).toEqual(['only for the left one', 'for everyone']);
    expect([...new Set(steeredBy('right'))]).toEqual(['for everyone']);
  });
});
