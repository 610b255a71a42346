import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { createKernel, defineTool, memoryStore, type Model, type ModelResult } from 'dualloop';
import { activePaths, activeStatesAt } from '../../src/viewer/model/active-states.js';
import { pausePoints } from './pause-points.js';
import { statePath } from './state-path.js';

function pausingModel(pauses: ReturnType<typeof pausePoints>, answers: readonly ModelResult[]): Model {
  return {
    provider: 'test',
    modelId: 'pausing',
    async call(request) {
      await pauses.enter('model');
      return answers[request.callIndex] ?? { type: 'failure', code: 'script_exhausted', message: 'no more answers' };
    },
  };
}

const usage = { inputTokens: 10, outputTokens: 5 };
const toolCall = (id: string) => ({ type: 'response', text: '', toolCalls: [{ id, name: 'slow', args: { id } }], usage, costUsd: 0, finishReason: 'tool_calls' }) as const;
const answer = (text: string) => ({ type: 'response', text, toolCalls: [], usage, costUsd: 0, finishReason: 'stop' }) as const;

describe('active states from events', () => {
  it('match the actors’ snapshots wherever the run waits: model call, tool, outer stop evaluator, the end', async () => {
    const pauses = pausePoints();
    const store = memoryStore();
    const slow = defineTool({
      name: 'slow',
      description: 'Waits until the test lets it finish.',
      parameters: z.object({ id: z.string() }),
      execute: async () => {
        await pauses.enter('tool');
        return 'ok';
      },
    });
    const kernel = createKernel({
      model: pausingModel(pauses, [toolCall('a'), answer('first done'), toolCall('b'), answer('second done')]),
      tools: [slow],
      store,
      stopEvaluators: {
        outer: [
          async () => {
            await pauses.enter('outer');
            return undefined;
          },
        ],
      },
    });
    const run = kernel.start(['first task', 'second task'], { runId: 'states-1' });
    const expected: Record<string, { workflow: string; turn: string | undefined }> = {
      model: { workflow: 'TASK_EXECUTE', turn: 'PLAN' },
      tool: { workflow: 'TASK_EXECUTE', turn: 'ACT' },
      outer: { workflow: 'NEXT_TASK', turn: undefined },
    };
    const seen: string[] = [];
    const finished = run.result.then(() => 'finished');
    for (;;) {
      const label = await Promise.race([pauses.next(), finished]);
      if (label === 'finished') break;
      const snapshot = run.actor.getSnapshot();
      const child = snapshot.children.task?.getSnapshot();
      const events = await store.readEvents('states-1');
      const derived = activeStatesAt(events, events.length);
      expect(derived.workflow, `workflow at ${label}`).toBe(statePath(snapshot.value));
      if (child !== undefined) expect(derived.turn, `turn at ${label}`).toBe(statePath(child.value));
      expect({ workflow: derived.workflow, turn: child === undefined ? undefined : derived.turn }).toEqual(expected[label]);
      seen.push(label);
      pauses.release();
    }
    await run.result;
    const events = await store.readEvents('states-1');
    expect(activeStatesAt(events, events.length)).toMatchObject({ workflow: 'DONE', turn: 'DONE' });
    expect(statePath(run.actor.getSnapshot().value)).toBe('DONE');
    // The user's outer evaluator is not asked after the last task: the built-in goal_achieved decides first.
    expect(seen).toEqual(['model', 'tool', 'model', 'outer', 'model', 'tool', 'model']);
  });

  it('shows the wrap-up call as WRAP_UP, as the turn machine is, and DONE after it', async () => {
    const pauses = pausePoints();
    const store = memoryStore();
    const slow = defineTool({ name: 'slow', description: 'Answers at once.', parameters: z.object({ id: z.string() }), execute: async () => 'ok' });
    const kernel = createKernel({ model: pausingModel(pauses, [toolCall('a'), answer('best so far')]), tools: [slow], store, wrapUpOnBound: true, bounds: { inner: { maxTurns: 1 } } });
    const run = kernel.start(['one turn only'], { runId: 'states-wrap-up' });
    const turnStates: string[] = [];
    const finished = run.result.then(() => 'finished');
    while ((await Promise.race([pauses.next(), finished])) !== 'finished') {
      const child = run.actor.getSnapshot().children.task?.getSnapshot();
      const events = await store.readEvents('states-wrap-up');
      expect(activeStatesAt(events, events.length).turn).toBe(statePath(child!.value));
      turnStates.push(statePath(child!.value));
      pauses.release();
    }
    expect(turnStates).toEqual(['PLAN', 'WRAP_UP']);
    const events = await store.readEvents('states-wrap-up');
    expect(activeStatesAt(events, events.findLastIndex((event) => event.type === 'message_end') + 1).turn).toBe('DONE');
    expect((await run.result).tasks[0]!.wrapUp?.assistantText).toBe('best so far');
  });

  it('shows the compaction as COMPACT, as the turn machine is, then PLAN; a failed one goes to CHECK_STOP', async () => {
    const pauses = pausePoints();
    const store = memoryStore();
    const slow = defineTool({ name: 'slow', description: 'Answers at once.', parameters: z.object({ id: z.string() }), execute: async () => 'ok' });
    let compactions = 0;
    const kernel = createKernel({
      model: pausingModel(pauses, [toolCall('a'), toolCall('b'), answer('done')]),
      tools: [slow],
      store,
      compactor: {
        shouldCompact: (_messages, { turn }) => turn >= 2,
        compact: async (messages) => {
          await pauses.enter('compactor');
          compactions += 1;
          if (compactions === 2) throw new Error('summariser down');
          return messages;
        },
      },
    });
    const run = kernel.start(['compacting task'], { runId: 'states-compact' });
    const turnStates: string[] = [];
    const finished = run.result.then(() => 'finished');
    while ((await Promise.race([pauses.next(), finished])) !== 'finished') {
      const child = run.actor.getSnapshot().children.task?.getSnapshot();
      const events = await store.readEvents('states-compact');
      expect(activeStatesAt(events, events.length).turn).toBe(statePath(child!.value));
      turnStates.push(statePath(child!.value));
      pauses.release();
    }
    // Turn 1: the model call. Turn 2: compaction, model call. Turn 3: a compaction that fails.
    expect(turnStates).toEqual(['PLAN', 'COMPACT', 'PLAN', 'COMPACT']);
    expect((await run.result).stop.reason).toBe('error');
    const events = await store.readEvents('states-compact');
    const ends = events.flatMap((event, index) => (event.type === 'compaction_end' ? [index + 1] : []));
    expect(ends.map((count) => activeStatesAt(events, count).turn)).toEqual(['PLAN', 'CHECK_STOP']);
  });

  it('shows DONE after a compaction the task’s stop cut short', async () => {
    const pauses = pausePoints();
    const store = memoryStore();
    const kernel = createKernel({
      model: pausingModel(pauses, [answer('never asked')]),
      store,
      compactor: { shouldCompact: () => true, compact: (messages) => pauses.enter('compactor').then(() => messages) },
    });
    const run = kernel.start(['canceled while compacting'], { runId: 'states-compact-cut' });
    expect(await pauses.next()).toBe('compactor');
    run.abort('operator stop');
    await run.result;
    const events = await store.readEvents('states-compact-cut');
    const end = events.findIndex((event) => event.type === 'compaction_end');
    expect(events[end]).toMatchObject({ outcome: 'canceled' });
    expect(activeStatesAt(events, end).turn).toBe('COMPACT');
    expect(activeStatesAt(events, end + 1).turn).toBe('DONE');
    pauses.release();
  });

  it('moves back when fewer events are applied (replay)', async () => {
    const pauses = pausePoints();
    const store = memoryStore();
    const kernel = createKernel({ model: pausingModel(pauses, [answer('done')]), store });
    const run = kernel.start(['only task'], { runId: 'states-2' });
    await pauses.next();
    pauses.release();
    await run.result;
    const events = await store.readEvents('states-2');
    const at = (type: string) => events.findIndex((event) => event.type === type) + 1;
    expect(activeStatesAt(events, 0)).toMatchObject({ workflow: 'INIT', turn: undefined });
    expect(activeStatesAt(events, at('message_start'))).toMatchObject({ workflow: 'TASK_EXECUTE', turn: 'PLAN' });
    expect(activeStatesAt(events, at('task_end'))).toMatchObject({ workflow: 'CHECKPOINT', turn: 'DONE' });
    expect(activeStatesAt(events, events.length)).toMatchObject({ workflow: 'DONE' });
  });

  it('activePaths lists a state and its ancestors', () => {
    expect(activePaths('TASK_SELECT.GATE')).toEqual(['TASK_SELECT', 'TASK_SELECT.GATE']);
    expect(activePaths('ACT')).toEqual(['ACT']);
    expect(activePaths(undefined)).toEqual([]);
  });
});
