import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createKernel, defineTool, memoryStore, type PolicyGate } from 'dualloop';
import { scriptedModel } from 'dualloop/testing';

function deployTool() {
  const deployed: unknown[] = [];
  const tool = defineTool({
    name: 'deploy',
    description: 'Deploys a service.',
    parameters: z.object({ service: z.string() }),
    execute: ({ service }) => {
      deployed.push(service);
      return `deployed ${service}`;
    },
  });
  return { tool, deployed };
}

const needsApproval: PolicyGate = {
  checkToolCall: (request) => (request.name === 'deploy' ? { decision: 'require_approval', reason: 'deploys need a human' } : { decision: 'allow' }),
};

describe('tool approvals', () => {
  it('parks the run awaiting_approval, then resume with approve runs the same call and completes', async () => {
    const store = memoryStore();
    const { tool, deployed } = deployTool();
    // A real model would not repeat its call ids: on resume the kernel must not call it again for that turn.
    const model = scriptedModel([{ toolCalls: [{ name: 'deploy', args: { service: 'api' }, id: 'call-deploy-1' }] }, { text: 'api deployed' }]);
    const kernel = createKernel({ model, tools: [tool], store, policy: needsApproval });

    const parked = await kernel.start(['ship it'], { runId: 'approval-run' }).result;
    expect(parked.stop.reason).toBe('awaiting_approval');
    expect(parked.stop.detail).toContain('call-deploy-1');
    expect(deployed).toEqual([]);

    const resumed = await (await kernel.resume('approval-run', { approvals: { 'call-deploy-1': 'approve' } })).result;
    expect(resumed.stop.reason).toBe('goal_achieved');
    expect(deployed).toEqual(['api']);
    expect(model.calls).toHaveLength(2);
    const task = resumed.tasks[0]!;
    expect(task.turnCount).toBe(2);
    expect(task.turns[0]!.toolCalls[0]).toMatchObject({ id: 'call-deploy-1', result: 'deployed api', isError: false });
  });

  it('resume with reject gives the model an error result and goes on', async () => {
    const store = memoryStore();
    const { tool, deployed } = deployTool();
    const model = scriptedModel([{ toolCalls: [{ name: 'deploy', args: { service: 'db' }, id: 'call-db' }] }, { text: 'understood, not deploying' }]);
    const kernel = createKernel({ model, tools: [tool], store, policy: needsApproval });
    expect((await kernel.start(['ship db'], { runId: 'reject-run' }).result).stop.reason).toBe('awaiting_approval');

    const resumed = await (await kernel.resume('reject-run', { approvals: { 'call-db': 'reject' } })).result;
    expect(deployed).toEqual([]);
    expect(resumed.stop.reason).toBe('goal_achieved');
    const seen = model.calls[1]!.messages.find((message) => message.role === 'tool');
    expect(seen).toMatchObject({ isError: true });
    expect(seen?.content).toContain('rejected by the approver');
  });

  it('stays parked when resumed without an answer', async () => {
    const store = memoryStore();
    const { tool } = deployTool();
    const model = scriptedModel([{ toolCalls: [{ name: 'deploy', args: { service: 'api' }, id: 'c1' }] }]);
    const kernel = createKernel({ model, tools: [tool], store, policy: needsApproval });
    await kernel.start(['ship'], { runId: 'still-parked' }).result;
    const again = await (await kernel.resume('still-parked')).result;
    expect(again.stop.reason).toBe('awaiting_approval');
    expect(model.calls).toHaveLength(1);
  });
});

describe('task approvals', () => {
  const gate: PolicyGate = { checkTask: (request) => (request.task.id === 'task-2' ? { decision: 'require_approval', reason: 'costly task' } : { decision: 'allow' }) };

  it('parks before the task; approve runs it, reject ends policy_denied', async () => {
    const store = memoryStore();
    const model = scriptedModel([{ text: 'one' }, { text: 'two' }]);
    const kernel = createKernel({ model, store, policy: gate });

    const parked = await kernel.start(['one', 'two'], { runId: 'task-gate' }).result;
    expect(parked.stop).toMatchObject({ reason: 'awaiting_approval' });
    expect(parked.tasks).toHaveLength(1);

    const approved = await (await kernel.resume('task-gate', { approvals: { 'task:task-2': 'approve' } })).result;
    expect(approved.stop.reason).toBe('goal_achieved');
    expect(approved.tasks.map((task) => task.taskId)).toEqual(['task-1', 'task-2']);
    expect(model.calls).toHaveLength(2);

    const other = createKernel({ model: scriptedModel([{ text: 'one' }]), store, policy: gate });
    await other.start(['one', 'two'], { runId: 'task-gate-2' }).result;
    const rejected = await (await other.resume('task-gate-2', { approvals: { 'task:task-2': 'reject' } })).result;
    expect(rejected.stop.reason).toBe('policy_denied');
  });
});
