import { describe, expect, it } from 'vitest';
import { runWorkflow, type TaskPolicyRequest } from 'dualloop';
import { scriptedModel } from 'dualloop/testing';
import { addTool } from '../support/kernel-fixtures.js';

describe('the task policy gate', () => {
  it('is asked before every task, the first included, and a denial of the second stops policy_denied', async () => {
    const asked: TaskPolicyRequest[] = [];
    const model = scriptedModel([{ text: 'first', usage: { inputTokens: 3, outputTokens: 4 } }, { text: 'second' }]);
    const result = await runWorkflow({
      model,
      tasks: ['one', 'two', 'three'],
      policy: {
        checkTask: (request) => {
          asked.push(request);
          return request.task.index === 1 ? { decision: 'deny', reason: 'second task is not allowed' } : { decision: 'allow' };
        },
      },
    });

    expect(asked.map((request) => request.task.id)).toEqual(['task-1', 'task-2']);
    expect(asked[1]!.metrics).toMatchObject({ workflowSteps: 1, inputTokens: 3, outputTokens: 4 });
    expect(result.stop.reason).toBe('policy_denied');
    expect(result.stop.detail).toContain('second task is not allowed');
    expect(result.tasks).toHaveLength(1);
    expect(model.calls).toHaveLength(1);
  });

  it('denies the very first task before any model call', async () => {
    const model = scriptedModel([{ text: 'never' }]);
    const result = await runWorkflow({ model, tasks: ['one'], policy: { checkTask: () => ({ decision: 'deny', reason: 'closed' }) } });
    expect(result.stop.reason).toBe('policy_denied');
    expect(model.calls).toHaveLength(0);
  });

  it('turns a throwing gate into an error stop, not an exception', async () => {
    const model = scriptedModel([{ text: 'never' }]);
    const result = await runWorkflow({
      model,
      tasks: ['one'],
      policy: {
        checkTask: () => {
          throw new Error('policy service down');
        },
      },
    });
    expect(result.stop.reason).toBe('error');
    expect(result.stop.detail).toContain('policy service down');
  });
});

describe('the tool policy gate', () => {
  it('turns a denied call into an error result the model sees; halt stops the task policy_denied', async () => {
    const model = scriptedModel([{ toolCalls: [{ name: 'add', args: { a: 1, b: 1 } }] }, { text: 'ok' }]);
    const denied = await runWorkflow({
      model,
      tools: [addTool],
      tasks: ['one'],
      policy: { checkToolCall: () => ({ decision: 'deny', reason: 'no maths today' }) },
    });
    expect(denied.tasks[0]!.turns[0]!.toolCalls[0]).toMatchObject({ isError: true, result: 'denied by policy: no maths today' });
    expect(denied.tasks[0]!.stop.reason).toBe('planner_stopped');

    const halting = scriptedModel([{ toolCalls: [{ name: 'add', args: { a: 1, b: 1 } }] }, { text: 'never' }]);
    const halted = await runWorkflow({
      model: halting,
      tools: [addTool],
      tasks: ['one'],
      policy: { checkToolCall: () => ({ decision: 'deny', reason: 'forbidden', halt: true }) },
    });
    expect(halted.stop.reason).toBe('policy_denied');
    expect(halting.calls).toHaveLength(1);
  });
});
