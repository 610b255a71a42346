import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { createKernel, defineTool, memoryStore, type KernelOptions, type Message } from 'dualloop';
import { collectRun, scriptedModel, type ScriptStep } from 'dualloop/testing';
import { waitForEvent } from '../support/kernel-fixtures.js';

const search = defineTool({ name: 'search', description: 'searches', parameters: z.object({ q: z.string() }), execute: ({ q }) => `results for ${q}` });

const askedToWrapUp = (messages: readonly Message[]) => {
  const last = messages.at(-1);
  return last?.role === 'user' && last.source === 'wrap_up';
};

/** A model that keeps searching (a new query each call) until it is asked to wrap up. */
const searcher = (step: (index: number) => ScriptStep = (index) => ({ toolCalls: [{ name: 'search', args: { q: `q${index}` } }] })) =>
  scriptedModel(({ index, messages }) => (askedToWrapUp(messages) ? { text: 'best answer so far' } : step(index)));

async function runWith(options: Partial<KernelOptions>, model = searcher()) {
  const outcome = await collectRun(createKernel({ model, tools: [search], ...options }).start(['research']));
  return { ...outcome, model, task: outcome.result.tasks[0]! };
}

describe('wrapUpOnBound', () => {
  it('max_turns: one more call, without tools, asking for the best answer; recorded, not counted as a turn', async () => {
    const { model, task, events, result } = await runWith({ wrapUpOnBound: true, bounds: { inner: { maxTurns: 2 } } });

    expect(model.calls).toHaveLength(3);
    const wrapUp = model.calls[2]!;
    expect(wrapUp.tools).toEqual([]);
    expect(wrapUp.messages.at(-1)).toMatchObject({ role: 'user', source: 'wrap_up' });
    expect(model.calls[1]!.tools.map((tool) => tool.name)).toEqual(['search']);

    expect(task.stop.reason).toBe('max_turns');
    expect(task.turnCount).toBe(2);
    expect(task.turns).toHaveLength(2);
    expect(task.wrapUp?.assistantText).toBe('best answer so far');
    expect(task.output).toBe('best answer so far');
    expect(result.metrics.turns).toBe(2);
    expect(events.filter((event) => event.type === 'message_start').map((event) => event.wrapUp)).toEqual([false, false, true]);
  });

  it('max_tool_calls: the wrap-up call follows the bound', async () => {
    const { model, task } = await runWith({ wrapUpOnBound: true, bounds: { inner: { maxToolCalls: 2 } } });
    expect(task.stop.reason).toBe('max_tool_calls');
    expect(model.calls.at(-1)!.tools).toEqual([]);
    expect(task.output).toBe('best answer so far');
  });

  it('loop_detected: the wrap-up call follows the repeated call', async () => {
    const model = searcher(() => ({ toolCalls: [{ name: 'search', args: { q: 'same' } }] }));
    const { task } = await runWith({ wrapUpOnBound: true, loopDetection: { threshold: 2 } }, model);
    expect(task.stop.reason).toBe('loop_detected');
    expect(model.calls).toHaveLength(3);
    expect(task.output).toBe('best answer so far');
  });

  it('does not apply to other stops (budget): no extra call', async () => {
    const model = searcher((index) => ({ toolCalls: [{ name: 'search', args: { q: `q${index}` } }], usage: { inputTokens: 60, outputTokens: 0 } }));
    const { task } = await runWith({ wrapUpOnBound: true, bounds: { inner: { maxTokens: 100 } } }, model);
    expect(task.stop.reason).toBe('budget_exhausted');
    expect(model.calls).toHaveLength(2);
    expect(task.wrapUp).toBeUndefined();
  });

  it('is off by default: a bound ends the task with no extra call', async () => {
    const { model, task } = await runWith({ bounds: { inner: { maxTurns: 2 } } });
    expect(task.stop.reason).toBe('max_turns');
    expect(model.calls).toHaveLength(2);
    expect(task.wrapUp).toBeUndefined();
  });

  it('a failed wrap-up call leaves the stop as it was and keeps the last turn as the output', async () => {
    const model = scriptedModel([
      { text: 'partial', toolCalls: [{ name: 'search', args: { q: 'a' } }] },
      { error: 'provider down' },
    ]);
    const { task } = await runWith({ wrapUpOnBound: true, bounds: { inner: { maxTurns: 1 } } }, model);
    expect(model.calls).toHaveLength(2);
    expect(task.stop.reason).toBe('max_turns');
    expect(task.output).toBe('partial');
    expect(task.wrapUp).toMatchObject({ turn: 1, assistantText: '', finishReason: 'error' });
  });
});

describe('the wrap-up call in the audit', () => {
  it('follows the stop: after which turn, how it finished, the length of its answer, its usage; not a turn', async () => {
    const store = memoryStore();
    const model = searcher((index) => ({ toolCalls: [{ name: 'search', args: { q: `q${index}` } }], usage: { inputTokens: 5, outputTokens: 1 } }));
    const { task } = await runWith({ wrapUpOnBound: true, bounds: { inner: { maxTurns: 2 } }, store }, model);
    expect(task.wrapUp).toMatchObject({ turn: 2, finishReason: 'stop' });

    const runId = (await store.listRuns())[0]!.runId;
    const audited = (await store.audit(runId))!.tasks[0]!;
    expect(audited.stop.reason).toBe('max_turns');
    expect(audited.turns.map((turn) => turn.turn)).toEqual([1, 2]);
    expect(audited.wrapUp).toEqual({
      afterTurn: 2,
      finishReason: 'stop',
      textLength: 'best answer so far'.length,
      usage: task.wrapUp!.usage,
      costUsd: task.wrapUp!.costUsd,
      runtimeMs: task.wrapUp!.runtimeMs,
    });
  });

  it('records a wrap-up call cut by a cancel as canceled, with no answer', async () => {
    const store = memoryStore();
    const model = scriptedModel(({ messages }) => (askedToWrapUp(messages) ? { text: 'never', delayMs: 60_000 } : { toolCalls: [{ name: 'search', args: { q: 'x' } }] }));
    const run = createKernel({ model, tools: [search], store, wrapUpOnBound: true, bounds: { inner: { maxTurns: 1 } } }).start(['research'], { runId: 'wrap-up-canceled' });
    await waitForEvent(run, (event) => event.type === 'message_start' && event.wrapUp);
    run.abort('operator stop');
    const task = (await run.result).tasks[0]!;
    expect(task.stop.reason).toBe('context_canceled');
    expect(task.wrapUp).toMatchObject({ turn: 1, assistantText: '', finishReason: 'canceled' });
    expect((await store.audit('wrap-up-canceled'))?.tasks[0]?.wrapUp).toMatchObject({ afterTurn: 1, finishReason: 'canceled', textLength: 0 });
  });
});
