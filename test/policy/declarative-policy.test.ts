import { describe, expect, it } from 'vitest';
import { calculatorTool, ConfigError, createKernel, currentTimeTool, declarativePolicy, type ToolPolicyRequest, type WorkflowMetrics } from 'dualloop';
import { collectRun, scriptedModel } from 'dualloop/testing';

const signal = new AbortController().signal;
const toolCall = (name: string, spent = { tokens: 0, costUsd: 0 }): ToolPolicyRequest => ({ runId: 'run', taskId: 'task-1', toolCallId: 'call_1', name, args: {}, spent });
const metrics = (tokens: number, costUsd: number): WorkflowMetrics => ({ workflowSteps: 1, turns: 1, toolCalls: 0, inputTokens: tokens, outputTokens: 0, costUsd, runtimeMs: 0 });
const task = { id: 'publish', index: 1, description: 'Publish the report' };

describe('declarativePolicy', () => {
  it('denies listed tools, and tools missing from an allow list, halting the task by default', () => {
    const policy = declarativePolicy({ allow: ['calculator', 'shell'], deny: ['shell'] });
    expect(policy.checkToolCall!(toolCall('calculator'), signal)).toEqual({ decision: 'allow' });
    expect(policy.checkToolCall!(toolCall('shell'), signal)).toEqual({ decision: 'deny', reason: 'tool "shell" is on the policy\'s deny list', halt: true });
    expect(policy.checkToolCall!(toolCall('read_file'), signal)).toEqual({ decision: 'deny', reason: 'tool "read_file" is not on the policy\'s allow list', halt: true });
    expect(declarativePolicy({ deny: ['shell'], haltOnDeny: false }).checkToolCall!(toolCall('shell'), signal)).toMatchObject({ decision: 'deny', halt: false });
  });

  it('asks for approval of listed tools and tasks', () => {
    const policy = declarativePolicy({ requireApproval: ['send_email'], approveTasks: ['publish'] });
    expect(policy.checkToolCall!(toolCall('send_email'), signal)).toEqual({ decision: 'require_approval', reason: 'tool "send_email" requires approval' });
    expect(policy.checkTask!({ runId: 'run', task, metrics: metrics(0, 0) }, signal)).toEqual({ decision: 'require_approval', reason: 'task "publish" requires approval' });
    expect(policy.checkTask!({ runId: 'run', task: { ...task, id: 'draft' }, metrics: metrics(0, 0) }, signal)).toEqual({ decision: 'allow' });
  });

  it('closes the gates once the run has spent its cost or token allowance (>=)', () => {
    const policy = declarativePolicy({ maxCostUsd: 0.5, maxTokens: 1000 });
    expect(policy.checkToolCall!(toolCall('calculator', { tokens: 999, costUsd: 0.49 }), signal)).toEqual({ decision: 'allow' });
    expect(policy.checkToolCall!(toolCall('calculator', { tokens: 10, costUsd: 0.5 }), signal)).toMatchObject({ decision: 'deny', reason: 'policy cost gate: $0.5000 spent, limit $0.5000' });
    expect(policy.checkToolCall!(toolCall('calculator', { tokens: 1000, costUsd: 0 }), signal)).toMatchObject({ decision: 'deny', reason: 'policy token gate: 1000 tokens used, limit 1000' });
    expect(policy.checkTask!({ runId: 'run', task, metrics: metrics(1000, 0) }, signal)).toMatchObject({ decision: 'deny' });
    expect(policy.checkTask!({ runId: 'run', task, metrics: metrics(10, 0.1) }, signal)).toEqual({ decision: 'allow' });
  });

  it('throws one ConfigError naming every bad field', () => {
    const attempt = () => declarativePolicy({ deny: ['no spaces'], maxCostUsd: -1, maxTokens: 1.5, extra: true } as never);
    expect(attempt).toThrow(ConfigError);
    try {
      attempt();
    } catch (error) {
      expect((error as ConfigError).issues.map((issue) => issue.path).sort()).toEqual(['', 'deny.0', 'maxCostUsd', 'maxTokens']);
    }
  });

  it('stops a run policy_denied when the model calls a denied tool', async () => {
    const model = scriptedModel([{ toolCalls: [{ name: 'calculator', args: { expression: '1 + 1' } }] }, { text: 'two' }]);
    const kernel = createKernel({ model, tools: [calculatorTool(), currentTimeTool()], policy: declarativePolicy({ allow: ['current_time'] }) });
    const { result } = await collectRun(kernel.start(['add']));
    expect(result.stop.reason).toBe('policy_denied');
    expect(result.tasks[0]!.turns[0]!.toolCalls[0]).toMatchObject({ name: 'calculator', isError: true });
  });
});
