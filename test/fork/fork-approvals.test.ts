import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createKernel, defineTool, memoryStore, type PolicyGate } from 'dualloop';
import { scriptedModel } from 'dualloop/testing';

function deployTool() {
  const deployed: string[] = [];
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

// Turn 1 answers a question, turn 2 asks to deploy (approval), turn 3 reports.
const steps = [
  { toolCalls: [{ name: 'deploy', args: { service: 'staging' }, id: 'call-staging' }] },
  { toolCalls: [{ name: 'deploy', args: { service: 'api' }, id: 'call-api' }] },
  { text: 'api deployed' },
];

describe('fork and approvals', () => {
  it('a fork before a parked approval asks again, and never reuses an answer the source got after the point', async () => {
    const store = memoryStore();
    const { tool, deployed } = deployTool();
    const kernel = createKernel({ model: scriptedModel(steps), tools: [tool], store, policy: needsApproval });
    const parked = await kernel.start(['ship it'], { runId: 'source' }).result;
    expect(parked.stop.reason).toBe('awaiting_approval');
    const resumed = await (await kernel.resume('source', { approvals: { 'call-staging': 'approve' } })).result;
    expect(resumed.stop.reason).toBe('awaiting_approval');
    expect(resumed.stop.detail).toContain('call-api');
    expect(deployed).toEqual(['staging']);

    // Parked source, fork before the parked turn: the model is asked again and the approval is asked again.
    const forkModel = scriptedModel(steps);
    const forkKernel = createKernel({ model: forkModel, tools: [tool], store, policy: needsApproval });
    const fork = await (await forkKernel.fork('source', { at: { task: 1, turn: 2 }, runId: 'fork-parked' })).result;
    expect(fork.stop.reason).toBe('awaiting_approval');
    expect(fork.stop.detail).toContain('call-api');
    expect(forkModel.calls.map((call) => call.index)).toEqual([1]);
    expect(deployed).toEqual(['staging']);

    // The source is approved and finishes; a fork before that turn still asks (no stale answer).
    expect((await (await kernel.resume('source', { approvals: { 'call-api': 'approve' } })).result).stop.reason).toBe('goal_achieved');
    expect(deployed).toEqual(['staging', 'api']);
    const again = await (await forkKernel.fork('source', { at: { task: 1, turn: 2 }, runId: 'fork-finished' })).result;
    expect(again.stop.reason).toBe('awaiting_approval');
    expect(deployed).toEqual(['staging', 'api']);
    // Even before the first approval: both are asked again, one at a time.
    const first = await (await forkKernel.fork('source', { at: { task: 1 }, runId: 'fork-start' })).result;
    expect(first.stop.detail).toContain('call-staging');

    // The fork is a run like any other: approving it goes on from there.
    const approved = await (await forkKernel.resume('fork-finished', { approvals: { 'call-api': 'approve' } })).result;
    expect(approved.stop.reason).toBe('goal_achieved');
    expect(approved.tasks[0]!.turns.map((turn) => turn.turn)).toEqual([1, 2, 3]);
    expect(deployed).toEqual(['staging', 'api', 'api']);
  });

  it('a fork before a task parked at the task gate asks the gate again', async () => {
    const store = memoryStore();
    const gate: PolicyGate = { checkTask: (request) => (request.task.id === 'task-2' ? { decision: 'require_approval', reason: 'costly task' } : { decision: 'allow' }) };
    const kernel = createKernel({ model: scriptedModel([{ text: 'one' }, { text: 'two' }]), store, policy: gate });
    expect((await kernel.start(['a', 'b'], { runId: 'gated' }).result).stop.reason).toBe('awaiting_approval');
    expect((await (await kernel.resume('gated', { approvals: { 'task:task-2': 'approve' } })).result).stop.reason).toBe('goal_achieved');
    const fork = await (await kernel.fork('gated', { at: { task: 2 } })).result;
    expect(fork.stop.reason).toBe('awaiting_approval');
    expect(fork.tasks.map((task) => task.output)).toEqual(['one']);
  });
});
