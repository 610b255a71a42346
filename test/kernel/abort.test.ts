import { describe, expect, it } from 'vitest';
import { createKernel } from 'dualloop';
import { collectRun, scriptedModel } from 'dualloop/testing';
import { waitForEvent } from '../support/kernel-fixtures.js';

describe('abort', () => {
  it('ends the run context_canceled mid-task, keeping finished tasks and the in-flight call sees its signal', async () => {
    const model = scriptedModel([{ text: 'first done' }, { text: 'too slow', delayMs: 60_000 }]);
    const run = createKernel({ model }).start(['one', 'two', 'three']);

    await waitForEvent(run, (event) => event.type === 'message_start' && event.taskId === 'task-2');
    run.abort('user pressed stop');
    const { result } = await collectRun(run);

    expect(result.stop).toMatchObject({ reason: 'context_canceled', detail: 'user pressed stop' });
    expect(result.tasks.map((task) => [task.taskId, task.stop.reason])).toEqual([
      ['task-1', 'planner_stopped'],
      ['task-2', 'context_canceled'],
    ]);
    expect(model.calls).toHaveLength(2);
  });

  it('honours an AbortSignal given to start()', async () => {
    const controller = new AbortController();
    const model = scriptedModel([{ text: 'slow', delayMs: 60_000 }]);
    const run = createKernel({ model }).start(['one'], { signal: controller.signal });
    await waitForEvent(run, (event) => event.type === 'message_start');
    controller.abort();
    const result = await run.result;
    expect(result.stop.reason).toBe('context_canceled');
  });

  it('stops before anything runs when the signal is already aborted', async () => {
    const model = scriptedModel([{ text: 'never' }]);
    const result = await createKernel({ model, signal: AbortSignal.abort() }).start(['one']).result;
    expect(result.stop.reason).toBe('context_canceled');
  });
});

describe('abort outside a running task', () => {
  it('stops cleanly while the task policy gate is still deciding', async () => {
    let gateAsked!: () => void;
    const asked = new Promise<void>((resolve) => (gateAsked = resolve));
    const model = scriptedModel([{ text: 'never' }]);
    const run = createKernel({
      model,
      policy: {
        checkTask: (_request, signal) =>
          new Promise((resolve) => {
            gateAsked();
            signal.addEventListener('abort', () => resolve({ decision: 'allow' }));
          }),
      },
    }).start(['one']);
    await asked;
    run.abort();
    const result = await run.result;
    expect(result.stop.reason).toBe('context_canceled');
    expect(result.tasks).toHaveLength(0);
    expect(model.calls).toHaveLength(0);
  });
});
