// Approving with edited arguments and rejecting with a message through the store (`approveRun`),
// on SQLite and Postgres: the answer is sent on one connection and applied by a kernel on the other.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { agentTool, approveRun, ConfigError, createKernel, defineTool, type CheckpointStore, type ControlChannel, type PolicyGate } from 'dualloop';
import { scriptedModel, type ScriptCall, type ScriptStep } from 'dualloop/testing';
import { storeKinds } from './control-stores.js';

function workflow(store: CheckpointStore) {
  const deployed: unknown[] = [];
  const deploy = defineTool({
    name: 'deploy',
    description: 'Deploys a service.',
    parameters: z.object({ service: z.string(), env: z.enum(['staging', 'prod']) }),
    execute: (args) => (deployed.push(args), `deployed ${args.service} to ${args.env}`),
  });
  const policy: PolicyGate = { checkToolCall: () => ({ decision: 'require_approval', reason: 'deploys need a human' }) };
  const model = scriptedModel([{ toolCalls: [{ name: 'deploy', args: { service: 'api', env: 'prod' }, id: 'call-deploy' }] }, { text: 'done' }]);
  return { kernel: createKernel({ model, tools: [deploy], store, policy }), tools: [deploy], deployed, model };
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (error: unknown) => error,
  );
}

const answers = async (store: CheckpointStore, runId: string) => (await (store as unknown as ControlChannel).approvalAnswers(runId)) as ReadonlyMap<string, unknown>;

describe.each(storeKinds())('approving with edits through $name', ({ open }) => {
  it('checks the edit against the tool, stores it, and the resume runs the edited call; the audit shows both', async () => {
    const { runner, sender, close } = open();
    try {
      const first = workflow(runner);
      expect((await first.kernel.start(['ship it'], { runId: 'edited' }).result).stop.reason).toBe('awaiting_approval');

      const invalid = await failure(approveRun(sender, 'edited', { answer: { decision: 'approve', args: { service: 'api', env: 'moon' } }, tools: first.tools }));
      expect(invalid).toBeInstanceOf(ConfigError);
      expect((invalid as ConfigError).issues.map((issue) => issue.path)).toEqual(['answer.args.env']);
      const malformed = await failure(approveRun(sender, 'edited', { answer: { decision: 'reject', message: 42 } as never }));
      expect((malformed as ConfigError).issues.map((issue) => issue.path)).toEqual(['answer.message']);
      expect((await answers(sender, 'edited')).size).toBe(0);

      const approvalId = await approveRun(sender, 'edited', { answer: { decision: 'approve', args: { service: 'api', env: 'staging' } }, tools: first.tools });
      expect(approvalId).toBe('call-deploy');

      // Another kernel, on the other connection, applies the stored answer.
      const second = workflow(sender);
      const result = await (await second.kernel.resume('edited')).result;
      expect(result.stop.reason).toBe('goal_achieved');
      expect(second.deployed).toEqual([{ service: 'api', env: 'staging' }]);
      expect(first.deployed).toEqual([]);
      expect(result.tasks[0]!.turns[0]!.toolCalls[0]).toMatchObject({ args: { service: 'api', env: 'staging' }, proposedArgs: { service: 'api', env: 'prod' } });

      const audit = await runner.audit('edited');
      expect(audit?.tasks[0]!.turns[0]!.toolCalls[0]).toMatchObject({ args: { service: 'api', env: 'staging' }, proposedArgs: { service: 'api', env: 'prod' } });
      expect(audit?.policyDecisions.at(-1)).toMatchObject({ decision: 'allow', approvalId: 'call-deploy', answer: { decision: 'approve', args: { service: 'api', env: 'staging' } } });
      const events = await runner.readEvents('edited');
      const starts = events.filter((event) => event.type === 'tool_execution_start');
      expect(starts.at(-1)).toMatchObject({ args: { service: 'api', env: 'prod' } });
      expect(events.filter((event) => event.type === 'tool_execution_end').at(-1)).toMatchObject({ executedArgs: { service: 'api', env: 'staging' } });
    } finally {
      await close();
    }
  });

  it('an edit stored without the tools is checked by the resume: invalid, a ConfigError and nothing runs; the caller’s answer replaces it', async () => {
    const { runner, sender, close } = open();
    try {
      const first = workflow(runner);
      await first.kernel.start(['ship it'], { runId: 'unchecked' }).result;
      await approveRun(sender, 'unchecked', { answer: { decision: 'approve', args: { service: 'api', env: 'moon' } } });
      const second = workflow(sender);
      const refused = await failure(second.kernel.resume('unchecked'));
      expect(refused).toBeInstanceOf(ConfigError);
      expect((refused as ConfigError).issues).toEqual([{ path: 'approvals.call-deploy.args.env', message: expect.stringContaining('an answer sent through the store') }]);
      expect(second.deployed).toEqual([]);
      expect((await sender.loadResult('unchecked'))?.stop.reason).toBe('awaiting_approval');
      const result = await (await second.kernel.resume('unchecked', { approvals: { 'call-deploy': { decision: 'approve', args: { service: 'api', env: 'staging' } } } })).result;
      expect(result.stop.reason).toBe('goal_achieved');
      expect(second.deployed).toEqual([{ service: 'api', env: 'staging' }]);
    } finally {
      await close();
    }
  });

  it('a rejection with a message reaches the model as the tool’s error result', async () => {
    const { runner, sender, close } = open();
    try {
      const first = workflow(runner);
      await first.kernel.start(['ship it'], { runId: 'told' }).result;
      await approveRun(sender, 'told', { answer: { decision: 'reject', message: 'prod is frozen this week' } });
      expect((await answers(sender, 'told')).get('call-deploy')).toEqual({ decision: 'reject', message: 'prod is frozen this week' });
      const second = workflow(sender);
      const result = await (await second.kernel.resume('told')).result;
      expect(second.deployed).toEqual([]);
      expect(second.model.calls.at(-1)!.messages.at(-1)).toMatchObject({ role: 'tool', isError: true, content: 'Error: prod is frozen this week' });
      expect(result.tasks[0]!.turns[0]!.toolCalls[0]).toMatchObject({ result: 'prod is frozen this week', isError: true });
    } finally {
      await close();
    }
  });

  it('an approval parked in a delegated run is answered on the parent, its edit checked against the agent’s tools', async () => {
    const { runner, sender, close } = open();
    try {
      const first = delegating(runner);
      expect((await first.kernel.start(['release the app'], { runId: 'releaser' }).result).stop.reason).toBe('awaiting_approval');
      const invalid = await failure(approveRun(sender, 'releaser', { answer: { decision: 'approve', args: { service: 'api', env: 'moon' } }, tools: first.tools }));
      expect((invalid as ConfigError).issues.map((issue) => issue.path)).toEqual(['answer.args.env']);
      expect(await approveRun(sender, 'releaser', { answer: { decision: 'approve', args: { service: 'api', env: 'staging' } }, tools: first.tools })).toBe('call-deploy');

      const second = delegating(sender);
      const result = await (await second.kernel.resume('releaser')).result;
      expect(result.stop.reason).toBe('goal_achieved');
      expect(second.deployed).toEqual([{ service: 'api', env: 'staging' }]);
      const child = await runner.audit('releaser.t0.1.0');
      expect(child?.tasks[0]!.turns[0]!.toolCalls[0]).toMatchObject({ args: { service: 'api', env: 'staging' }, proposedArgs: { service: 'api', env: 'prod' } });
    } finally {
      await close();
    }
  });
});

/** A parent whose agent tool's child deploys (parking for approval). */
function delegating(store: CheckpointStore) {
  const taskOf = (call: ScriptCall) => String(call.messages.find((message) => message.role === 'user')?.content ?? '');
  const answered = (call: ScriptCall) => call.messages.at(-1)?.role === 'tool';
  const inner = workflow(store);
  const model = scriptedModel((call): ScriptStep => {
    if (taskOf(call) === 'ship it') return answered(call) ? { text: 'shipped' } : { toolCalls: [{ name: 'deploy', args: { service: 'api', env: 'prod' }, id: 'call-deploy' }] };
    return answered(call) ? { text: 'released' } : { toolCalls: [{ name: 'release', id: 'call-release' }] };
  });
  const release = agentTool({ name: 'release', description: 'Releases.', parameters: z.object({}), tasks: ['ship it'], tools: inner.tools });
  const policy: PolicyGate = { checkToolCall: ({ name }) => (name === 'deploy' ? { decision: 'require_approval', reason: 'deploys need a human' } : { decision: 'allow' }) };
  return { kernel: createKernel({ model, tools: [release], store, policy }), tools: [release], deployed: inner.deployed };
}
