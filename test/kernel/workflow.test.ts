import { describe, expect, it } from 'vitest';
import { runWorkflow } from 'dualloop';
import { scriptedModel } from 'dualloop/testing';
import { countingTool } from '../support/kernel-fixtures.js';

const answer = (text: string, tokens = 10) => ({ text, usage: { inputTokens: tokens, outputTokens: tokens } });

describe('max_workflow_steps', () => {
  it('runs exactly 2 of 4 tasks when maxWorkflowSteps is 2', async () => {
    const model = scriptedModel([answer('a'), answer('b'), answer('c'), answer('d')]);
    const result = await runWorkflow({ model, tasks: ['1', '2', '3', '4'], bounds: { outer: { maxWorkflowSteps: 2 } } });

    expect(result.stop).toMatchObject({ reason: 'max_workflow_steps', bound: { name: 'maxWorkflowSteps', limit: 2, value: 2 } });
    expect(result.tasks).toHaveLength(2);
    expect(model.calls).toHaveLength(2);
  });

  it('ends goal_achieved when there are as many tasks as steps', async () => {
    const model = scriptedModel([answer('a'), answer('b')]);
    const result = await runWorkflow({ model, tasks: ['1', '2'], bounds: { outer: { maxWorkflowSteps: 2 } } });
    expect(result.stop.reason).toBe('goal_achieved');
    expect(result.tasks).toHaveLength(2);
  });
});

describe('a task stopped by a bound', () => {
  it('halts the workflow with its reason; later tasks never run; metrics sum across tasks', async () => {
    const { tool } = countingTool();
    const model = scriptedModel([
      answer('first', 5),
      { toolCalls: [{ name: 'step', args: { n: 1 } }], usage: { inputTokens: 7, outputTokens: 3 } },
      { toolCalls: [{ name: 'step', args: { n: 2 } }], usage: { inputTokens: 7, outputTokens: 3 } },
      answer('never reached'),
    ]);
    const result = await runWorkflow({ model, tools: [tool], tasks: ['one', 'two', 'three'], bounds: { inner: { maxTurns: 2 } } });

    expect(result.stop.reason).toBe('max_turns');
    expect(result.stop.detail).toContain('task-2');
    expect(result.tasks.map((task) => task.taskId)).toEqual(['task-1', 'task-2']);
    expect(result.metrics).toMatchObject({ workflowSteps: 2, turns: 3, toolCalls: 2, inputTokens: 19, outputTokens: 11 });
  });

  it('lets the workflow go on with onTaskStop: continue', async () => {
    const { tool } = countingTool();
    const model = scriptedModel([{ toolCalls: [{ name: 'step' }] }, answer('second')]);
    const result = await runWorkflow({ model, tools: [tool], tasks: ['one', 'two'], bounds: { inner: { maxTurns: 1 } }, onTaskStop: 'continue' });

    expect(result.tasks.map((task) => task.stop.reason)).toEqual(['max_turns', 'planner_stopped']);
    expect(result.stop.reason).toBe('goal_achieved');
    expect(result.stop.detail).toContain('task-1 max_turns');
  });
});
