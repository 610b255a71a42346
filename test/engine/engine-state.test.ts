import { describe, expect, it } from 'vitest';
import { createEngine, EngineError, loopEngine, type EngineAdapter } from 'dualloop';
import { scriptedModel } from 'dualloop/testing';
import { drain } from './contract.js';

describe('engine state is not portable between engines', () => {
  const engines = (): [EngineAdapter, EngineAdapter] => [
    createEngine({ model: scriptedModel([{ text: 'a' }]) }),
    loopEngine({ model: scriptedModel([{ text: 'a' }]) }),
  ];

  it.each([
    [0, 1],
    [1, 0],
  ])('a state saved by one engine is refused by the other, naming both', async (from, to) => {
    const pair = engines();
    const source = pair[from]!;
    const target = pair[to]!;
    await drain(source.stream({ prompt: 'hi' }));
    const state = source.saveState!();
    let refusal: unknown;
    try {
      target.loadState!(state);
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(EngineError);
    expect(refusal).toMatchObject({ code: 'engine_state_mismatch', engineId: target.engineId });
    expect((refusal as Error).message).toContain(`"${target.engineId}"`);
    expect((refusal as Error).message).toContain(`"${source.engineId}"`);
    // The refused state changed nothing: the target's own state is still empty.
    expect(target.saveState!()).toEqual({ engineId: target.engineId, version: 1, messages: [], modelCalls: 0 });
  });

  it('loadState() during a stream is refused (engine_busy)', async () => {
    const adapter = loopEngine({ model: scriptedModel([{ text: 'slow', delayMs: 20 }]) });
    const stream = adapter.stream({ prompt: 'hi' });
    const first = stream.next();
    expect(() => adapter.loadState!(adapter.saveState!())).toThrow(expect.objectContaining({ code: 'engine_busy' }));
    await first;
    await drain({ [Symbol.asyncIterator]: () => stream });
  });
});

describe('createEngine options', () => {
  it('are the kernel options, validated at once (ConfigError naming every bad field)', () => {
    expect(() => createEngine({ model: 'nope' as never, toolExecution: 'never' as never })).toThrow(/model[\s\S]*toolExecution|toolExecution[\s\S]*model/);
  });

  it('refuse `tasks`: each stream is one task built from its input', () => {
    expect(() => createEngine({ model: scriptedModel([]), tasks: ['a'] })).toThrow(/tasks/);
  });
});

describe('loopEngine options', () => {
  it('are validated at once (ConfigError naming every bad field)', () => {
    expect(() => loopEngine({ model: {} as never, maxTurns: 0, tools: [{ name: 'x' } as never] })).toThrow(/model[\s\S]*maxTurns[\s\S]*tools\.0/);
  });
});
