import { describe, expect, it } from 'vitest';
import { runWorkflow } from 'dualloop';
import { scriptedModel } from 'dualloop/testing';
import { countingTool } from '../support/kernel-fixtures.js';

describe('user stop evaluators', () => {
  it('an inner goal check ends the task goal_achieved without touching the machines', async () => {
    const { tool } = countingTool();
    const model = scriptedModel(({ index }) => ({ text: `progress ${index}`, toolCalls: [{ name: 'step', args: { n: index } }] }));
    const result = await runWorkflow({
      model,
      tools: [tool],
      tasks: ['until 3'],
      stopEvaluators: { inner: [async (view) => (view.lastText === 'progress 2' ? { reason: 'goal_achieved', detail: 'reached 2' } : undefined)] },
    });
    expect(result.tasks[0]!.stop).toMatchObject({ reason: 'goal_achieved', detail: 'reached 2' });
    expect(result.stop.reason).toBe('goal_achieved');
    expect(model.calls).toHaveLength(3);
  });

  it('still obeys the priority order: a goal on the bound turn wins, an unknown reason is an error', async () => {
    const { tool } = countingTool();
    const model = scriptedModel(({ index }) => ({ toolCalls: [{ name: 'step', args: { n: index } }] }));
    const onBound = await runWorkflow({
      model,
      tools: [tool],
      tasks: ['t'],
      bounds: { inner: { maxTurns: 2 } },
      stopEvaluators: { inner: [(view) => (view.turn === 2 ? { reason: 'goal_achieved' } : undefined)] },
    });
    expect(onBound.tasks[0]!.stop.reason).toBe('goal_achieved');

    const bogus = await runWorkflow({
      model: scriptedModel(({ index }) => ({ toolCalls: [{ name: 'step', args: { n: index } }] })),
      tools: [tool],
      tasks: ['t'],
      stopEvaluators: { inner: [() => ({ reason: 'because' as never })] },
    });
    expect(bogus.stop.reason).toBe('error');
    expect(bogus.stop.detail).toContain('unknown reason "because"');
  });

  it('an outer evaluator can stop the workflow between tasks', async () => {
    const model = scriptedModel([{ text: 'a' }, { text: 'b' }, { text: 'c' }]);
    const result = await runWorkflow({
      model,
      tasks: ['1', '2', '3'],
      stopEvaluators: { outer: [(view) => (view.results.length === 2 ? { reason: 'goal_achieved', detail: 'two is enough' } : undefined)] },
    });
    expect(result.stop).toMatchObject({ reason: 'goal_achieved', detail: 'two is enough' });
    expect(result.tasks).toHaveLength(2);
  });
});
