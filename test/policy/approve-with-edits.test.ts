/**
 * Approving a parked tool call with corrected arguments, or rejecting it with a message for the
 * model, on memory, SQLite and Postgres stores: the executed call uses the edited arguments, and
 * the proposed, approved and executed arguments are all kept (events, audit).
 */
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { approveRun, createKernel, defineTool, isDualloopError, memoryStore, type CheckpointStore, type KernelOptions } from 'dualloop';
import { scriptedModel, type ScriptCall, type ScriptStep } from 'dualloop/testing';
import { runCli } from '../cli/cli-process.js';
import { storeKinds } from '../control/control-stores.js';

const lastIsTool = (call: ScriptCall) => call.messages.at(-1)?.role === 'tool';

function workflow(store: CheckpointStore, deployed: string[]): KernelOptions {
  const deploy = defineTool({
    name: 'deploy',
    description: 'Deploys a service.',
    parameters: z.object({ service: z.string(), env: z.enum(['staging', 'production']) }),
    execute: ({ service, env }) => {
      deployed.push(`${service}@${env}`);
      return `deployed ${service} to ${env}`;
    },
  });
  const model = scriptedModel((call): ScriptStep =>
    lastIsTool(call) ? { text: `tool said: ${call.messages.at(-1)?.content}` } : { toolCalls: [{ name: 'deploy', id: 'deploy-1', args: { service: 'api', env: 'production' } }] },
  );
  return { model, store, tools: [deploy], policy: { checkToolCall: () => ({ decision: 'require_approval', reason: 'a human deploys' }) } };
}

const memory = { name: 'memoryStore', open: () => { const store = memoryStore(); return { runner: store, sender: store, close: async () => {} }; } };

describe.each([memory, ...storeKinds()])('approve with edits on $name', ({ open }) => {
  it('runs the call with the approver\'s arguments and keeps the proposed, approved and executed ones', async () => {
    const { runner, sender, close } = open();
    const deployed: string[] = [];
    const parked = await createKernel(workflow(runner, deployed)).start(['Deploy the api'], { runId: 'edit-1' }).result;
    expect(parked.stop.reason).toBe('awaiting_approval');

    const run = await createKernel(workflow(sender, deployed)).resume('edit-1', { approvals: { 'deploy-1': { decision: 'approve', args: { service: 'api', env: 'staging' } } } });
    const result = await run.result;
    expect(result.stop.reason).toBe('goal_achieved');
    expect(deployed).toEqual(['api@staging']);
    expect(result.tasks[0]!.output).toBe('tool said: deployed api to staging');

    const events = await sender.readEvents('edit-1');
    const decisions = events.filter((event) => event.type === 'policy_decision' && event.subject === 'tool');
    expect(decisions.map((event) => [event.decision, event.args, event.edited])).toEqual([
      ['require_approval', { service: 'api', env: 'production' }, undefined],
      ['allow', { service: 'api', env: 'staging' }, true],
    ]);
    const started = events.filter((event) => event.type === 'tool_execution_start').at(-1);
    const ended = events.filter((event) => event.type === 'tool_execution_end').at(-1);
    expect(started).toMatchObject({ args: { service: 'api', env: 'production' } });
    expect(ended).toMatchObject({ args: { service: 'api', env: 'staging' }, executed: true });

    const audit = await sender.audit('edit-1');
    expect(audit?.policyDecisions.filter((decision) => decision.subject === 'tool').map((decision) => decision.args)).toEqual([{ service: 'api', env: 'production' }, { service: 'api', env: 'staging' }]);
    expect(result.tasks[0]!.turns.flatMap((turn) => turn.toolCalls.map((call) => call.args))).toEqual([{ service: 'api', env: 'staging' }]);
    await close();
  });

  it('rejects with a message the model reads as the tool\'s error result', async () => {
    const { runner, sender, close } = open();
    const deployed: string[] = [];
    await createKernel(workflow(runner, deployed)).start(['Deploy the api'], { runId: 'edit-2' }).result;
    const result = await (await createKernel(workflow(sender, deployed)).resume('edit-2', { approvals: { 'deploy-1': { decision: 'reject', message: 'not on a Friday' } } })).result;
    expect(deployed).toEqual([]);
    expect(result.tasks[0]!.output).toBe('tool said: Error: not on a Friday');
    await close();
  });
});

describe('approvals with edits: bad answers', () => {
  const [sqlite] = storeKinds();
  it('an edit that fails the tool schema is a ConfigError naming the field; nothing runs and the run stays parked', async () => {
    const store = memoryStore();
    const deployed: string[] = [];
    await createKernel(workflow(store, deployed)).start(['Deploy the api'], { runId: 'edit-3' }).result;
    const resumed = createKernel(workflow(store, deployed)).resume('edit-3', { approvals: { 'deploy-1': { decision: 'approve', args: { service: 'api', env: 'moon' } } } });
    await expect(resumed).rejects.toSatisfy((error: unknown) => isDualloopError(error, 'config_invalid') && /approvals\.deploy-1\.args: invalid arguments for "deploy": env:/.test(String((error as Error).message) + JSON.stringify((error as { issues?: unknown }).issues)));
    expect(deployed).toEqual([]);
    expect((await store.loadResult('edit-3'))?.stop.reason).toBe('awaiting_approval');
    // The run is still parked: a good answer goes on.
    const result = await (await createKernel(workflow(store, deployed)).resume('edit-3', { approvals: { 'deploy-1': 'approve' } })).result;
    expect(deployed).toEqual(['api@production']);
    expect(result.stop.reason).toBe('goal_achieved');
  });

  it('something that is no answer is a ConfigError', async () => {
    const store = memoryStore();
    await createKernel(workflow(store, [])).start(['Deploy the api'], { runId: 'edit-4' }).result;
    const bad = { 'deploy-1': { decision: 'maybe' } } as never;
    await expect(createKernel(workflow(store, [])).resume('edit-4', { approvals: bad })).rejects.toThrow(/approvals\.deploy-1: must be 'approve', 'reject', \{ decision: 'approve', args \} or \{ decision: 'reject', message \}/);
  });

  it('an edit sent through the store that fails the schema runs nothing: the model gets an error result', async () => {
    const { runner, sender, close } = sqlite!.open();
    const deployed: string[] = [];
    await createKernel(workflow(runner, deployed)).start(['Deploy the api'], { runId: 'edit-5' }).result;
    await approveRun(sender, 'edit-5', { callId: 'deploy-1', answer: { decision: 'approve', args: { service: 'api', env: 'moon' } } });
    const result = await (await createKernel(workflow(sender, deployed)).resume('edit-5')).result;
    expect(deployed).toEqual([]);
    expect(result.tasks[0]!.output).toMatch(/^tool said: Error: the arguments the approver gave are invalid: invalid arguments for "deploy": env:/);
    await close();
  });
});

describe('dualloop approve --args / --message', () => {
  const [sqlite] = storeKinds();

  it('sends an edit the next resume runs with, and a rejection message; bad flags are usage errors', async () => {
    const { runner, sender, target, close } = sqlite!.open();
    const deployed: string[] = [];
    await createKernel(workflow(runner, deployed)).start(['Deploy the api'], { runId: 'cli-edit' }).result;
    const cwd = tmpdir();

    const notJson = await runCli(['approve', 'cli-edit', '--allow', '--args', '{env:', '--store', target], { cwd });
    expect(notJson.code).toBe(64);
    expect(notJson.stderr).toMatch(/--args is not JSON/);
    const mixed = await runCli(['approve', 'cli-edit', '--deny', '--args', '{}', '--store', target], { cwd });
    expect(mixed).toMatchObject({ code: 64 });
    expect(mixed.stderr).toContain('--args goes with --allow');

    const approved = await runCli(['approve', 'cli-edit', '--allow', '--args', '{"service":"api","env":"staging"}', '--store', target], { cwd });
    expect(approved, approved.stderr).toMatchObject({ code: 0 });
    expect(approved.stdout).toContain('approval deploy-1 of run cli-edit: allowed with arguments {"service":"api","env":"staging"}');
    const result = await (await createKernel(workflow(sender, deployed)).resume('cli-edit')).result;
    expect(deployed).toEqual(['api@staging']);
    expect(result.stop.reason).toBe('goal_achieved');

    const audit = await runCli(['audit', 'cli-edit', '--store', target], { cwd });
    expect(audit.stdout).toContain('proposed arguments: {"service":"api","env":"production"}');
    expect(audit.stdout).toContain('approved arguments: {"service":"api","env":"staging"}');

    await createKernel(workflow(runner, deployed)).start(['Deploy the api'], { runId: 'cli-deny' }).result;
    const denied = await runCli(['approve', 'cli-deny', '--deny', '--message', 'use the staging pipeline', '--store', target], { cwd });
    expect(denied.stdout).toContain('denied: use the staging pipeline');
    const refused = await (await createKernel(workflow(sender, deployed)).resume('cli-deny')).result;
    expect(refused.tasks[0]!.output).toBe('tool said: Error: use the staging pipeline');
    await close();
  });
});
