import { describe, expect, it } from 'vitest';
import { ConfigError, createKernel, runWorkflow, type KernelOptions } from 'dualloop';
import { scriptedModel } from 'dualloop/testing';

describe('strategy options', () => {
  it('names every bad strategy field in one ConfigError', () => {
    const model = scriptedModel([]);
    let error: unknown;
    try {
      createKernel({
        model,
        strategy: 'tree_of_thought',
        planner: { modelId: 'not a model' },
        goal: '   ',
        autoRules: { maxTasksForReact: 0, classify: 'yes', extra: 1 },
        bounds: { outer: { maxReplans: -1 } },
      } as unknown as KernelOptions);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).issues.map((issue) => issue.path).sort()).toEqual(
      ['autoRules', 'autoRules.classify', 'autoRules.maxTasksForReact', 'bounds.outer.maxReplans', 'goal', 'planner', 'strategy'].sort(),
    );
    expect(model.calls).toHaveLength(0);
  });

  it('defaults to react: the tasks run in order, no planner call, no plan events', async () => {
    const planner = scriptedModel([]);
    const model = scriptedModel([{ text: 'a' }, { text: 'b' }]);
    const result = await runWorkflow({ model, planner, tasks: ['first', 'second'] });

    expect(result.stop.reason).toBe('goal_achieved');
    expect(result.tasks.map((task) => task.taskId)).toEqual(['task-1', 'task-2']);
    expect(planner.calls).toHaveLength(0);
    expect(result.metrics.turns).toBe(2);
  });

  it('a goal without tasks is the one task; the planner plans for it', async () => {
    const planner = scriptedModel([{ text: '1. look\n2. report' }]);
    const model = scriptedModel([{ text: 'looked' }, { text: 'reported' }]);
    const result = await runWorkflow({ model, planner, strategy: 'plan_execute', goal: 'Look around and report' });

    expect(result.stop.reason).toBe('goal_achieved');
    expect(planner.calls[0]!.messages[1]!.content).toContain('Look around and report');
    expect(result.tasks.map((task) => task.description)).toEqual(['look', 'report']);
  });
});
