import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, runWorkflow, terminate } from 'dualloop';
import { scriptedModel } from 'dualloop/testing';
import { countingTool } from '../support/kernel-fixtures.js';

const callForever = (index: number) => ({ toolCalls: [{ name: 'step', args: { n: index } }] });

describe('max_turns', () => {
  it('stops an endless tool-calling model exactly at the bound', async () => {
    const { tool, executed } = countingTool();
    const model = scriptedModel(({ index }) => callForever(index));
    const result = await runWorkflow({ model, tools: [tool], tasks: ['loop'], bounds: { inner: { maxTurns: 4 } } });

    expect(result.stop.reason).toBe('max_turns');
    expect(result.tasks[0]!.turnCount).toBe(4);
    expect(model.calls).toHaveLength(4);
    expect(executed).toHaveLength(4);
    expect(result.stop.bound).toEqual({ name: 'maxTurns', limit: 4, value: 4 });
  });

  it('counts a model that answers on the last allowed turn as planner_stopped', async () => {
    const { tool } = countingTool();
    const model = scriptedModel([callForever(0), callForever(1), { text: 'done on turn 3' }]);
    const result = await runWorkflow({ model, tools: [tool], tasks: ['three turns'], bounds: { inner: { maxTurns: 3 } } });

    expect(result.tasks[0]!.stop.reason).toBe('planner_stopped');
    expect(result.stop.reason).toBe('goal_achieved');
    expect(result.tasks[0]!.turnCount).toBe(3);
  });

  it('compares with >=: a bound of 1 stops after the first tool-calling turn', async () => {
    const { tool } = countingTool();
    const model = scriptedModel(({ index }) => callForever(index));
    const result = await runWorkflow({ model, tools: [tool], tasks: ['one'], bounds: { inner: { maxTurns: 1 } } });

    expect(result.tasks[0]!.stop.reason).toBe('max_turns');
    expect(model.calls).toHaveLength(1);
  });
});

describe('zero counts', () => {
  it('never stops a run that has used nothing yet', async () => {
    const model = scriptedModel([{ text: 'immediately done' }]);
    const result = await runWorkflow({
      model,
      tasks: ['answer'],
      bounds: { inner: { maxTurns: 1, maxToolCalls: 1, maxTokens: 1, maxCostUsd: 0.01 }, outer: { maxTokens: 1, maxCostUsd: 0.01 } },
    });
    expect(result.tasks[0]!.stop.reason).toBe('planner_stopped');
    expect(result.metrics.toolCalls).toBe(0);
  });

  it('rejects bounds of zero as configuration errors, naming each', async () => {
    const model = scriptedModel([]);
    await expect(runWorkflow({ model, tasks: ['x'], bounds: { inner: { maxTurns: 0, maxToolCalls: 0 } } })).rejects.toMatchObject({
      name: 'ConfigError',
      issues: expect.arrayContaining([
        expect.objectContaining({ path: 'bounds.inner.maxTurns' }),
        expect.objectContaining({ path: 'bounds.inner.maxToolCalls' }),
      ]),
    });
  });
});

describe('max_tool_calls', () => {
  it('is hard: 3 calls per turn with a bound of 5 runs at most 5', async () => {
    const { tool, executed } = countingTool();
    const model = scriptedModel(({ index }) => ({
      toolCalls: [0, 1, 2].map((k) => ({ name: 'step', args: { n: index * 10 + k } })),
    }));
    const result = await runWorkflow({ model, tools: [tool], tasks: ['burst'], bounds: { inner: { maxToolCalls: 5, maxTurns: 10 } } });

    expect(executed).toHaveLength(5);
    expect(result.tasks[0]!.stop.reason).toBe('max_tool_calls');
    expect(result.tasks[0]!.toolCalls).toBe(5);
    const secondTurn = result.tasks[0]!.turns[1]!;
    expect(secondTurn.toolCalls.map((call) => call.isError)).toEqual([false, false, true]);
    expect(String(secondTurn.toolCalls[2]!.result)).toContain('tool-call bound reached');
  });

  it('lets natural completion win over a bound reached on the same turn', async () => {
    const finishing = defineTool({
      name: 'finish',
      description: 'Ends the task.',
      parameters: z.object({}),
      execute: () => terminate('finished'),
    });
    // The terminating call uses the last tool-call slot on the last allowed turn: three bounds hold
    // at that CHECK_STOP (max_turns, max_tool_calls, tool_terminated); natural completion wins.
    const model = scriptedModel([{ toolCalls: [{ name: 'finish' }] }]);
    const result = await runWorkflow({ model, tools: [finishing], tasks: ['t'], bounds: { inner: { maxTurns: 1, maxToolCalls: 1 } } });
    expect(result.tasks[0]!.stop.reason).toBe('tool_terminated');
    expect(result.stop.reason).toBe('goal_achieved');
  });
});
