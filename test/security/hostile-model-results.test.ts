import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createKernel, defineTool, memoryStore, type KernelEvent, type Model, type ModelRequest, type ModelResult } from 'dualloop';

/*
 * DESIGN §12, ADR 0300: what a custom `Model` answers is foreign data, like a tool's result.
 * Getters or Proxy traps that throw, fields of the wrong type and text sent after the call ended
 * are a named model failure or ignored: never an unhandled rejection that leaves the run
 * unfinished, never a value a checkpoint cannot be read back with.
 */

const echo = defineTool({ name: 'echo', description: 'Echoes.', parameters: z.object({}).passthrough(), execute: (args) => args });

function response(fields: Record<string, unknown> = {}): ModelResult {
  return { type: 'response', text: 'done', toolCalls: [], usage: { inputTokens: 1, outputTokens: 1 }, costUsd: 0, finishReason: 'stop', ...fields } as ModelResult;
}

/** A model whose first answer is `first` (built per call), then plain text answers. */
function modelAnswering(first: (request: ModelRequest) => unknown): Model {
  return { provider: 'custom', modelId: 'hostile', call: async (request) => (request.callIndex === 0 ? (first(request) as ModelResult) : response()) };
}

async function run(model: Model) {
  const store = memoryStore();
  const started = createKernel({ model, tools: [echo], store }).start(['go']);
  const events: KernelEvent[] = [];
  for await (const event of started) events.push(event);
  return { result: await started.result, events, stored: await store.readEvents(started.runId) };
}

describe('a custom model answering hostile shapes', () => {
  it.each([
    ['a usage getter that throws', () => response({ usage: Object.defineProperty({ outputTokens: 1 }, 'inputTokens', { get: () => { throw new Error('getter'); }, enumerable: true }) }), /could not be read \(Error: getter\)/],
    ['a result whose every read throws', () => new Proxy({ type: 'response' }, { get: (_target, key) => { if (key === 'then') return undefined; throw new Error('trap'); } }), /could not be read/],
    ['a tool call whose name getter throws', () => response({ toolCalls: [Object.defineProperty({ id: 'c1', args: {} }, 'name', { get: () => { throw new Error('name'); } })] }), /could not be read \(Error: name\)/],
    ['a failure whose message throws', () => ({ type: 'failure', code: 'down', get message(): string { throw new Error('message'); } }), /could not be read \(Error: message\)/],
    ['a finish reason no checkpoint can hold', () => response({ finishReason: 'banana' }), /finishReason "banana" is not one of/],
    ['a tool call id that is an object', () => response({ toolCalls: [{ id: { x: 1 }, name: 'echo', args: {} }], finishReason: 'tool_calls' }), /toolCalls\.0\.id must be a non-empty string/],
    ['warnings that are not strings', () => response({ warnings: [{ x: 1 }] }), /warnings must be an array of strings/],
    ['a failure code that is not a string', () => ({ type: 'failure', code: 42, message: 'm' }), /a failure needs a code string/],
  ])('%s ends the task error with invalid_response', async (_name, answer, detail) => {
    const { result, events } = await run(modelAnswering(answer));
    expect(result.stop).toMatchObject({ reason: 'error', code: 'model_failed' });
    expect(result.stop.detail).toMatch(/invalid_response/);
    expect(result.stop.detail).toMatch(detail);
    expect(events.at(-1)?.type).toBe('workflow_end');
  });

  it('BigInt, function and symbol arguments reach the tool and the store as plain JSON', async () => {
    const { result, stored } = await run(modelAnswering(() => response({ toolCalls: [{ id: 'c1', name: 'echo', args: { big: 12345678901234567890n, f() {}, s: Symbol('s') } }], finishReason: 'tool_calls' })));
    expect(result.stop.reason).toBe('goal_achieved');
    expect(result.tasks[0]!.turns[0]!.toolCalls[0]).toMatchObject({ args: { big: '12345678901234567890' }, result: { big: '12345678901234567890' }, isError: false });
    expect(stored.find((event) => event.type === 'tool_execution_start')).toMatchObject({ args: { big: '12345678901234567890' } });
  });

  it('text a model streams after its call ended is not part of the run', async () => {
    // The first call keeps its onTextDelta; the tool it asks for calls it, after the message ended.
    let first: ((delta: unknown) => void) | undefined;
    const poke = defineTool({ name: 'poke', description: 'Pokes.', parameters: z.object({}), execute: () => (first?.('late'), first?.(42), 'poked') });
    const model: Model = {
      provider: 'custom',
      modelId: 'late',
      call: async (request) => {
        request.onTextDelta('on time');
        (request.onTextDelta as (delta: unknown) => void)(42);
        if (request.callIndex > 0) return response({ text: 'on time' });
        first = request.onTextDelta as (delta: unknown) => void;
        return response({ text: 'on time', toolCalls: [{ id: 'c1', name: 'poke', args: {} }], finishReason: 'tool_calls' });
      },
    };
    const store = memoryStore();
    const started = createKernel({ model, tools: [poke], store }).start(['go']);
    expect((await started.result).stop.reason).toBe('goal_achieved');
    const stored = await store.readEvents(started.runId);
    const updates = stored.filter((event) => event.type === 'message_update');
    expect(updates.map((event) => (event.type === 'message_update' ? event.delta : ''))).toEqual(['on time', 'on time']);
    // Each message's updates come between its start and its end.
    for (const update of updates) {
      const end = stored.find((event) => event.type === 'message_end' && event.turn === update.turn);
      expect(update.seq).toBeLessThan(end!.seq);
    }
  });
});
