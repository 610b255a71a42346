import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { createKernel, defineTool, type ShouldStopAfterTurn } from 'dualloop';
import { collectRun, scriptedModel } from 'dualloop/testing';

const step = defineTool({ name: 'step', description: 'one step', parameters: z.object({ n: z.number() }), execute: ({ n }) => (n === 2 ? 'target reached' : 'not yet') });

describe('shouldStopAfterTurn', () => {
  it('is asked after each turn with that turn; true ends the task `goal_achieved`', async () => {
    const seen: number[] = [];
    const shouldStopAfterTurn: ShouldStopAfterTurn = (turn) => {
      seen.push(turn.turn);
      return turn.toolCalls.some((call) => call.result === 'target reached');
    };
    const model = scriptedModel(({ index }) => ({ toolCalls: [{ name: 'step', args: { n: index + 1 } }] }));
    const { result } = await collectRun(createKernel({ model, tools: [step], shouldStopAfterTurn }).start(['walk']));

    expect(seen).toEqual([1, 2]);
    expect(model.calls).toHaveLength(2);
    expect(result.tasks[0]!.stop.reason).toBe('goal_achieved');
  });

  it('a throw ends the task `error`', async () => {
    const model = scriptedModel(({ index }) => ({ toolCalls: [{ name: 'step', args: { n: index } }] }));
    const shouldStopAfterTurn: ShouldStopAfterTurn = () => {
      throw new Error('checker broke');
    };
    const { result } = await collectRun(createKernel({ model, tools: [step], shouldStopAfterTurn }).start(['walk']));
    expect(result.tasks[0]!.stop.reason).toBe('error');
    expect(result.tasks[0]!.stop.detail).toContain('checker broke');
  });
});
