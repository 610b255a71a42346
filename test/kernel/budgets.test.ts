import { describe, expect, it } from 'vitest';
import { runWorkflow } from 'dualloop';
import { scriptedModel } from 'dualloop/testing';
import { countingTool } from '../support/kernel-fixtures.js';

describe('budgets', () => {
  it('stops a task on its token budget with budget_exhausted', async () => {
    const { tool } = countingTool();
    const model = scriptedModel(({ index }) => ({ toolCalls: [{ name: 'step', args: { n: index } }], usage: { inputTokens: 40, outputTokens: 10 } }));
    const result = await runWorkflow({ model, tools: [tool], tasks: ['spend'], bounds: { inner: { maxTokens: 120 } } });

    expect(result.stop).toMatchObject({ reason: 'budget_exhausted', bound: { name: 'inner.maxTokens', limit: 120, value: 150 } });
    expect(model.calls).toHaveLength(3);
  });

  it('stops on the workflow token budget across tasks', async () => {
    const model = scriptedModel([{ text: 'a', usage: { inputTokens: 60, outputTokens: 0 } }, { text: 'b', usage: { inputTokens: 60, outputTokens: 0 } }, { text: 'c' }]);
    const result = await runWorkflow({ model, tasks: ['1', '2', '3'], bounds: { outer: { maxTokens: 100 } } });
    expect(result.stop).toMatchObject({ reason: 'budget_exhausted', bound: { name: 'outer.maxTokens', limit: 100, value: 120 } });
    expect(result.tasks).toHaveLength(2);
  });

  it('stops on the cost budget', async () => {
    const { tool } = countingTool();
    const model = scriptedModel(({ index }) => ({ toolCalls: [{ name: 'step', args: { n: index } }], costUsd: 0.02 }));
    const result = await runWorkflow({ model, tools: [tool], tasks: ['spend'], bounds: { inner: { maxCostUsd: 0.05 } } });
    expect(result.stop).toMatchObject({ reason: 'budget_exhausted', bound: { name: 'inner.maxCostUsd', limit: 0.05 } });
    expect(model.calls).toHaveLength(3);
  });
});

describe('loop_detected', () => {
  it('stops the same call with the same arguments three times in a row', async () => {
    const { tool, executed } = countingTool();
    const model = scriptedModel(() => ({ toolCalls: [{ name: 'step', args: { n: 7 } }] }));
    const result = await runWorkflow({ model, tools: [tool], tasks: ['stuck'] });

    expect(result.stop).toMatchObject({ reason: 'loop_detected', bound: { name: 'loopDetection.threshold', limit: 3, value: 3 } });
    expect(executed).toHaveLength(3);
  });

  it('does not count calls whose arguments differ, and can be turned off', async () => {
    const { tool } = countingTool();
    const varied = scriptedModel(({ index }) => (index < 5 ? { toolCalls: [{ name: 'step', args: { n: index % 2 } }] } : { text: 'done' }));
    expect((await runWorkflow({ model: varied, tools: [tool], tasks: ['t'] })).stop.reason).toBe('goal_achieved');

    const same = scriptedModel(({ index }) => (index < 5 ? { toolCalls: [{ name: 'step', args: { n: 1 } }] } : { text: 'done' }));
    expect((await runWorkflow({ model: same, tools: [tool], tasks: ['t'], loopDetection: false })).stop.reason).toBe('goal_achieved');
  });
});
