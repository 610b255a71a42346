import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { agentTool, ConfigError, createKernel, defineTool, memoryStore, type PolicyGate } from 'dualloop';
import { scriptedModel, type ScriptCall, type ScriptStep } from 'dualloop/testing';

function taskOf(call: ScriptCall): string {
  const first = call.messages.find((message) => message.role === 'user');
  return typeof first?.content === 'string' ? first.content : '';
}

const lastIsTool = (call: ScriptCall) => call.messages.at(-1)?.role === 'tool';

function deployTool() {
  const deployed: unknown[] = [];
  const tool = defineTool({
    name: 'deploy',
    description: 'Deploys.',
    parameters: z.object({ env: z.enum(['staging', 'prod']) }),
    execute: (args) => (deployed.push(args), `deployed to ${args.env}`),
  });
  return { tool, deployed };
}

const gate: PolicyGate = { checkToolCall: ({ name }) => (name === 'deploy' ? { decision: 'require_approval', reason: 'a human deploys' } : { decision: 'allow' }) };

describe('edits inside a delegated run', () => {
  function releaseWorkflow() {
    const store = memoryStore();
    const { tool, deployed } = deployTool();
    const model = scriptedModel((call): ScriptStep => {
      if (taskOf(call) === 'ship it') return lastIsTool(call) ? { text: `shipped: ${call.messages.at(-1)?.content}` } : { toolCalls: [{ name: 'deploy', args: { env: 'prod' }, id: 'call-deploy' }] };
      return lastIsTool(call) ? { text: `release: ${call.messages.at(-1)?.content}` } : { toolCalls: [{ name: 'release', id: 'call-release' }] };
    });
    const release = agentTool({ name: 'release', description: 'Releases.', parameters: z.object({}), tasks: ['ship it'], tools: [tool] });
    const kernel = createKernel({ model, store, tools: [release], policy: gate });
    return { store, kernel, deployed };
  }

  it('the parent’s answer edits the child’s call; invalid arguments for it are refused at the parent’s resume', async () => {
    const { store, kernel, deployed } = releaseWorkflow();
    expect((await kernel.start(['release the app'], { runId: 'releaser' }).result).stop.reason).toBe('awaiting_approval');

    const bad = await kernel.resume('releaser', { approvals: { 'call-deploy': { decision: 'approve', args: { env: 'moon' } } } }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(bad).toBeInstanceOf(ConfigError);
    expect((bad as ConfigError).issues.map((issue) => issue.path)).toEqual(['approvals.call-deploy.args.env']);
    expect(deployed).toEqual([]);

    const result = await (await kernel.resume('releaser', { approvals: { 'call-deploy': { decision: 'approve', args: { env: 'staging' } } } })).result;
    expect(result.stop.reason).toBe('goal_achieved');
    expect(deployed).toEqual([{ env: 'staging' }]);
    expect(result.tasks[0]!.output).toBe('release: shipped: deployed to staging');
    const child = await store.audit('releaser.t0.1.0');
    expect(child?.tasks[0]!.turns[0]!.toolCalls[0]).toMatchObject({ args: { env: 'staging' }, proposedArgs: { env: 'prod' } });
    // The parent's record names the child its approval waited on.
    const parked = (await store.audit('releaser'))?.policyDecisions.find((decision) => decision.decision === 'require_approval');
    expect(parked).toMatchObject({ toolName: 'release', approvalId: 'call-deploy', childRunId: 'releaser.t0.1.0' });
  });
});

describe('an edit for an approval that was not pending when the run resumed', () => {
  it('is checked when its call asks: invalid, the call does not run and the task ends error naming the fields', async () => {
    const store = memoryStore();
    const { tool, deployed } = deployTool();
    const model = scriptedModel([
      { toolCalls: [{ name: 'deploy', args: { env: 'prod' }, id: 'call-1' }] },
      { toolCalls: [{ name: 'deploy', args: { env: 'prod' }, id: 'call-2' }] },
      { text: 'done' },
    ]);
    const kernel = createKernel({ model, store, tools: [tool], policy: gate });
    expect((await kernel.start(['deploy twice'], { runId: 'later' }).result).stop.reason).toBe('awaiting_approval');
    // call-2 has not been asked for yet: its answer cannot be checked against a waiting call.
    const result = await (
      await kernel.resume('later', { approvals: { 'call-1': { decision: 'approve', args: { env: 'staging' } }, 'call-2': { decision: 'approve', args: { env: 'moon' } } } })
    ).result;
    expect(deployed).toEqual([{ env: 'staging' }]);
    expect(result.stop).toMatchObject({ reason: 'error', code: 'policy_failed' });
    expect(result.stop.detail).toContain('approval call-2: the approver\'s arguments are invalid, so the call was not run: invalid arguments for "deploy": env:');
  });
});
