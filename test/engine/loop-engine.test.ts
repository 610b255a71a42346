import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { defineTool, loopEngine, type EngineEvent, type Model } from 'dualloop';
import { scriptedModel } from 'dualloop/testing';
import { contractViolations, drain } from './contract.js';

const done = (events: readonly EngineEvent[]) => (events.at(-1) as Extract<EngineEvent, { type: 'done' }>).output;

describe('loopEngine', () => {
  it("honours a tool's timeoutMs: the call is cut and the model sees the timeout", async () => {
    const slow = defineTool({
      name: 'slow',
      description: 'never answers',
      parameters: z.object({}),
      timeoutMs: 20,
      execute: () => new Promise(() => undefined),
    });
    const model = scriptedModel([{ toolCalls: [{ name: 'slow' }] }, { text: 'gave up' }]);
    const events = await drain(loopEngine({ model, tools: [slow] }).stream({ prompt: 'wait' }));
    expect(contractViolations(events)).toEqual([]);
    expect(events.find((event) => event.type === 'tool_call_end')).toMatchObject({ isError: true, result: 'timed out after 20 ms' });
    expect(model.calls[1]!.messages.at(-1)).toMatchObject({ role: 'tool', content: 'Error: timed out after 20 ms' });
  });

  it('a model adapter that rejects ends the stream `error`, not with a throw', async () => {
    const model: Model = {
      provider: 'broken',
      modelId: 'broken',
      call: () => Promise.reject(new Error('socket hang up')),
    };
    const events = await drain(loopEngine({ model }).stream({ prompt: 'hi' }));
    expect(contractViolations(events)).toEqual([]);
    expect(done(events)).toMatchObject({ stopReason: 'error', stopDetail: expect.stringContaining('socket hang up') });
  });

  it('runs the calls of a turn one by one, in source order', async () => {
    const log: string[] = [];
    const step = defineTool({
      name: 'step',
      description: 'logs',
      parameters: z.object({ n: z.number() }),
      executionMode: 'parallel',
      execute: async ({ n }) => {
        log.push(`start ${n}`);
        await new Promise((resolve) => setTimeout(resolve, 5 - n));
        log.push(`end ${n}`);
        return n;
      },
    });
    const model = scriptedModel([{ toolCalls: [1, 2, 3].map((n) => ({ name: 'step', args: { n } })) }, { text: 'ok' }]);
    await drain(loopEngine({ model, tools: [step] }).stream({ prompt: 'go' }));
    expect(log).toEqual(['start 1', 'end 1', 'start 2', 'end 2', 'start 3', 'end 3']);
  });
});
