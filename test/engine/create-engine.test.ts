import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { createEngine, defineTool, memoryStore, type EngineEvent } from 'dualloop';
import { scriptedModel } from 'dualloop/testing';
import { contractViolations, drain } from './contract.js';

const search = defineTool({ name: 'search', description: 'searches', parameters: z.object({ q: z.string() }), execute: ({ q }) => `results for ${q}` });

describe('createEngine: the kernel behind the adapter', () => {
  it('wrapUpOnBound: the wrap-up call streams with `wrapUp: true` past the last turn, has no turn_end, and is the answer', async () => {
    const model = scriptedModel(({ index, messages }) => {
      const last = messages.at(-1);
      return last?.role === 'user' && last.source === 'wrap_up' ? { text: 'best so far', chunks: ['best', ' so far'] } : { toolCalls: [{ name: 'search', args: { q: `q${index}` } }] };
    });
    const engine = createEngine({ model, tools: [search], wrapUpOnBound: true, bounds: { inner: { maxTurns: 2 } } });
    const events = await drain(engine.stream({ prompt: 'research' }));

    expect(contractViolations(events)).toEqual([]);
    expect(events.filter((event) => event.type === 'turn_end').map((event) => event.turnIndex)).toEqual([0, 1]);
    expect(events.filter((event) => event.type === 'text_delta')).toEqual([
      { type: 'text_delta', turnIndex: 2, delta: 'best', wrapUp: true },
      { type: 'text_delta', turnIndex: 2, delta: ' so far', wrapUp: true },
    ]);
    expect((events.at(-1) as Extract<EngineEvent, { type: 'done' }>).output).toMatchObject({ stopReason: 'max_turns', text: 'best so far', metrics: { turns: 2 } });
    // The conversation keeps the wrap-up exchange.
    expect(engine.saveState!().messages.slice(-2)).toMatchObject([{ role: 'user', source: 'wrap_up' }, { role: 'assistant', content: 'best so far' }]);
  });

  it('applies the kernel options: a before hook blocks a call, and every stream is a run in the store', async () => {
    const store = memoryStore();
    const model = scriptedModel([{ toolCalls: [{ name: 'search', args: { q: 'secret' } }] }, { text: 'ok' }]);
    const engine = createEngine({ model, tools: [search], store, beforeToolCall: () => ({ block: 'not today' }), name: 'engine-demo' });
    const events = await drain(engine.stream({ prompt: 'look' }));

    expect(events.find((event) => event.type === 'tool_call_end')).toMatchObject({ isError: true, result: 'blocked: not today' });
    const runs = await store.listRuns();
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ name: 'engine-demo', tasksDone: 1, tasksTotal: 1 });
    expect(runs[0]!.runId).toMatch(/^engine-/);
  });

  it('reports the task stop, not the workflow one; the workflow stop when no task ran', async () => {
    const answered = await drain(createEngine({ model: scriptedModel([{ text: 'hi' }]) }).stream({ prompt: 'hello' }));
    expect(answered.at(-1)).toMatchObject({ type: 'done', output: { stopReason: 'planner_stopped' } });

    const denied = createEngine({ model: scriptedModel([{ text: 'never' }]), policy: { checkTask: () => ({ decision: 'deny', reason: 'closed today' }) } });
    const events = await drain(denied.stream({ prompt: 'hello' }));
    expect(events).toEqual([{ type: 'done', output: expect.objectContaining({ stopReason: 'policy_denied', text: '' }) }]);
    expect(contractViolations(events)).toEqual([]);
  });
});
