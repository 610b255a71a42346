import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createKernel, defineTool, type Model } from 'dualloop';
import { collectRun, manualClock, scriptedModel } from 'dualloop/testing';
import { waitForEvent } from '../support/kernel-fixtures.js';

/** A model whose call never returns on its own; it records whether its signal fired. */
function hangingModel() {
  const signals: AbortSignal[] = [];
  const model: Model = {
    provider: 'test',
    modelId: 'hanging',
    call: (request) =>
      new Promise((resolve) => {
        signals.push(request.signal);
        request.signal.addEventListener('abort', () => resolve({ type: 'failure', code: 'aborted', message: 'aborted' }));
      }),
  };
  return { model, signals };
}

describe('task deadline', () => {
  it('cuts a model call that never returns at maxRuntimeMs, and aborts its signal', async () => {
    const clock = manualClock();
    const { model, signals } = hangingModel();
    const run = createKernel({ model, clock, bounds: { inner: { maxRuntimeMs: 5_000 } } }).start(['hang']);

    await waitForEvent(run, (event) => event.type === 'message_start');
    clock.advance(4_999);
    expect(signals[0]!.aborted).toBe(false);
    clock.advance(1);
    const result = await run.result;

    expect(result.stop.reason).toBe('max_runtime');
    expect(result.tasks[0]!.stop).toMatchObject({ reason: 'max_runtime', bound: { name: 'maxRuntimeMs', limit: 5_000 } });
    expect(signals[0]!.aborted).toBe(true);
    expect(result.tasks[0]!.turns).toHaveLength(1);
  });
});

describe('session deadline', () => {
  it('cuts a running task, keeps the finished ones and aborts the running tool', async () => {
    const clock = manualClock();
    let toolSignal: AbortSignal | undefined;
    const wait = defineTool({
      name: 'wait',
      description: 'Waits until cancelled.',
      parameters: z.object({}),
      execute: (_args, { signal }) =>
        new Promise((resolve) => {
          toolSignal = signal;
          signal.addEventListener('abort', () => resolve('cancelled'));
        }),
    });
    const model = scriptedModel([{ text: 'first task done' }, { toolCalls: [{ name: 'wait' }] }]);
    const run = createKernel({ model, tools: [wait], clock, bounds: { outer: { maxSessionRuntimeMs: 60_000 } } }).start(['quick', 'slow', 'never']);

    await waitForEvent(run, (event) => event.type === 'tool_execution_start');
    clock.advance(60_000);
    const { result, events } = await collectRun(run);

    expect(result.stop.reason).toBe('max_session_runtime');
    expect(result.tasks.map((task) => task.stop.reason)).toEqual(['planner_stopped', 'max_session_runtime']);
    expect(toolSignal?.aborted).toBe(true);
    expect(events.some((event) => event.type === 'task_start' && event.taskId === 'task-3')).toBe(false);
  });
});
