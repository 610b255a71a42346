import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigError, createKernel, defineTool, memoryStore, type KernelEvent, type PolicyGate } from 'dualloop';
import { scriptedModel, type ScriptCall, type ScriptStep } from 'dualloop/testing';

function deployTool() {
  const deployed: unknown[] = [];
  const tool = defineTool({
    name: 'deploy',
    description: 'Deploys a service to an environment.',
    parameters: z.object({ service: z.string(), env: z.enum(['staging', 'prod']) }),
    execute: (args) => {
      deployed.push(args);
      return `deployed ${args.service} to ${args.env}`;
    },
  });
  return { tool, deployed };
}

const needsApproval: PolicyGate = {
  checkToolCall: (request) => (request.name === 'deploy' ? { decision: 'require_approval', reason: 'deploys need a human' } : { decision: 'allow' }),
};

function parkedDeploy(runId: string) {
  const store = memoryStore();
  const { tool, deployed } = deployTool();
  const model = scriptedModel([{ toolCalls: [{ name: 'deploy', args: { service: 'api', env: 'prod' }, id: 'call-deploy' }] }, { text: 'done' }]);
  const kernel = createKernel({ model, tools: [tool], store, policy: needsApproval });
  return { store, kernel, model, deployed, started: kernel.start(['ship it'], { runId }).result };
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (error: unknown) => error,
  );
}

describe('approving with edited arguments', () => {
  it('runs the tool with the edited arguments and keeps the proposed ones apart: result, events, audit', async () => {
    const { store, kernel, model, deployed, started } = parkedDeploy('edit-run');
    expect((await started).stop.reason).toBe('awaiting_approval');

    const run = await kernel.resume('edit-run', { approvals: { 'call-deploy': { decision: 'approve', args: { service: 'api', env: 'staging' } } } });
    const events: KernelEvent[] = [];
    for await (const event of run) events.push(event);
    const result = await run.result;
    expect(result.stop.reason).toBe('goal_achieved');
    expect(deployed).toEqual([{ service: 'api', env: 'staging' }]);
    expect(result.tasks[0]!.turns[0]!.toolCalls[0]).toMatchObject({
      id: 'call-deploy',
      args: { service: 'api', env: 'staging' },
      proposedArgs: { service: 'api', env: 'prod' },
      result: 'deployed api to staging',
      isError: false,
    });
    // The model sees the result of the call that ran.
    expect(model.calls[1]!.messages.at(-1)).toMatchObject({ role: 'tool', content: 'deployed api to staging' });

    const start = events.find((event) => event.type === 'tool_execution_start');
    const decision = events.find((event) => event.type === 'policy_decision');
    const end = events.find((event) => event.type === 'tool_execution_end');
    expect(start).toMatchObject({ args: { service: 'api', env: 'prod' } });
    expect(decision).toMatchObject({ decision: 'allow', approvalId: 'call-deploy', answer: { decision: 'approve', args: { service: 'api', env: 'staging' } } });
    expect(decision?.type === 'policy_decision' && decision.reason).toBe('approved with edited arguments: deploys need a human');
    expect(end).toMatchObject({ executedArgs: { service: 'api', env: 'staging' }, isError: false });

    const recorded = await store.getToolResult('edit-run', 'call-deploy');
    expect(recorded).toMatchObject({ args: { service: 'api', env: 'staging' }, proposedArgs: { service: 'api', env: 'prod' } });
    const audit = await store.audit('edit-run');
    expect(audit?.tasks[0]!.turns[0]!.toolCalls[0]).toEqual({ id: 'call-deploy', name: 'deploy', isError: false, args: { service: 'api', env: 'staging' }, proposedArgs: { service: 'api', env: 'prod' } });
    expect(audit?.policyDecisions.at(-1)).toMatchObject({ decision: 'allow', answer: { decision: 'approve', args: { service: 'api', env: 'staging' } } });
  });

  it('a plain approval records no proposedArgs: args are the model’s', async () => {
    const { kernel, deployed, started } = parkedDeploy('plain-run');
    await started;
    const result = await (await kernel.resume('plain-run', { approvals: { 'call-deploy': { decision: 'approve' } } })).result;
    expect(deployed).toEqual([{ service: 'api', env: 'prod' }]);
    const call = result.tasks[0]!.turns[0]!.toolCalls[0]!;
    expect(call.args).toEqual({ service: 'api', env: 'prod' });
    expect('proposedArgs' in call).toBe(false);
  });

  it('refuses edited arguments the tool’s schema refuses with a ConfigError naming the fields; nothing runs and the run stays parked', async () => {
    const { store, kernel, model, deployed, started } = parkedDeploy('bad-edit');
    await started;
    const error = await rejection(kernel.resume('bad-edit', { approvals: { 'call-deploy': { decision: 'approve', args: { service: 7, env: 'moon' } } } }));
    expect(error).toBeInstanceOf(ConfigError);
    const paths = (error as ConfigError).issues.map((issue) => issue.path).sort();
    expect(paths).toEqual(['approvals.call-deploy.args.env', 'approvals.call-deploy.args.service']);
    expect((error as ConfigError).message).toContain('tool "deploy"');
    expect(deployed).toEqual([]);
    expect(model.calls).toHaveLength(1);
    expect((await store.loadResult('bad-edit'))?.stop.reason).toBe('awaiting_approval');
    // Nothing was left held or half-done: a valid answer then resumes it.
    const result = await (await kernel.resume('bad-edit', { approvals: { 'call-deploy': { decision: 'approve', args: { service: 'api', env: 'staging' } } } })).result;
    expect(result.stop.reason).toBe('goal_achieved');
    expect(deployed).toEqual([{ service: 'api', env: 'staging' }]);
  });

  it('refuses malformed answers and arguments for a task’s approval, naming each', async () => {
    const { kernel, started } = parkedDeploy('malformed');
    await started;
    const error = await rejection(
      kernel.resume('malformed', {
        approvals: {
          a: { decision: 'maybe' },
          b: { decision: 'approve', arguments: {} },
          c: { decision: 'reject', message: '  ' },
          d: 'yes',
          'task:ship': { decision: 'approve', args: {} },
        } as never,
      }),
    );
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).issues.map((issue) => issue.path)).toEqual(['approvals.a.decision', 'approvals.b.arguments', 'approvals.c.message', 'approvals.d']);
    const task = await rejection(kernel.resume('malformed', { approvals: { 'task:ship': { decision: 'approve', args: {} } } }));
    expect((task as ConfigError).issues).toEqual([{ path: 'approvals.task:ship.args', message: "a task's approval takes no arguments" }]);
  });
});

describe('rejecting with a message', () => {
  it('gives the model the message as the tool’s error result; the gate’s reason stays on the record', async () => {
    const { store, kernel, model, deployed, started } = parkedDeploy('reject-message');
    await started;
    const message = 'Not on a Friday: deploy to staging and ask again on Monday.';
    const result = await (await kernel.resume('reject-message', { approvals: { 'call-deploy': { decision: 'reject', message } } })).result;
    expect(deployed).toEqual([]);
    expect(result.stop.reason).toBe('goal_achieved');
    expect(model.calls[1]!.messages.at(-1)).toMatchObject({ role: 'tool', isError: true, content: `Error: ${message}` });
    expect(result.tasks[0]!.turns[0]!.toolCalls[0]).toMatchObject({ result: message, isError: true, args: { service: 'api', env: 'prod' } });
    expect((await store.audit('reject-message'))?.policyDecisions.at(-1)).toMatchObject({
      decision: 'deny',
      reason: 'approval rejected: deploys need a human',
      answer: { decision: 'reject', message },
    });
  });

  it('names the message in a rejected task’s stop', async () => {
    const model = scriptedModel([{ text: 'never' }]);
    const kernel = createKernel({ model, store: memoryStore(), policy: { checkTask: () => ({ decision: 'require_approval', reason: 'a human starts it' }) } });
    const runId = (await kernel.start([{ id: 'launch', description: 'launch' }], { runId: 'task-reject' }).result).runId;
    const result = await (await kernel.resume(runId, { approvals: { 'task:launch': { decision: 'reject', message: 'not this quarter' } } })).result;
    expect(result.stop).toMatchObject({ reason: 'policy_denied', detail: 'task "launch": approval task:launch rejected: not this quarter' });
  });
});

function taskOf(call: ScriptCall): string {
  const first = call.messages.find((message) => message.role === 'user');
  return typeof first?.content === 'string' ? first.content : '';
}

describe('edits where approvals park in parallel branches', () => {
  it('each branch runs its call with its own edit', async () => {
    const store = memoryStore();
    const { tool, deployed } = deployTool();
    const model = scriptedModel((call): ScriptStep => {
      if (call.messages.at(-1)?.role === 'tool') return { text: `${taskOf(call)}: ${call.messages.at(-1)?.content}` };
      return { toolCalls: [{ name: 'deploy', args: { service: taskOf(call), env: 'prod' }, id: `call-${taskOf(call)}` }] };
    });
    const kernel = createKernel({ model, store, tools: [tool], policy: needsApproval, bounds: { outer: { maxParallelTasks: 2 } } });
    const tasks = [
      { id: 'a', description: 'web', dependsOn: [] },
      { id: 'b', description: 'worker', dependsOn: [] },
    ];
    expect((await kernel.start(tasks, { runId: 'branches' }).result).stop.reason).toBe('awaiting_approval');
    const bad = await rejection(kernel.resume('branches', { approvals: { 'call-web': { decision: 'approve', args: { service: 'web', env: 'staging' } }, 'call-worker': { decision: 'approve', args: { env: 'staging' } } } }));
    expect((bad as ConfigError).issues.map((issue) => issue.path)).toEqual(['approvals.call-worker.args.service']);
    expect(deployed).toEqual([]);

    const result = await (
      await kernel.resume('branches', { approvals: { 'call-web': { decision: 'approve', args: { service: 'web', env: 'staging' } }, 'call-worker': { decision: 'reject', message: 'workers stay put' } } })
    ).result;
    expect(result.stop.reason).toBe('goal_achieved');
    expect(deployed).toEqual([{ service: 'web', env: 'staging' }]);
    const outputs = Object.fromEntries(result.tasks.map((task) => [task.taskId, task.output]));
    expect(outputs).toEqual({ a: 'web: deployed web to staging', b: 'worker: Error: workers stay put' });
    const audit = await store.audit('branches');
    const calls = audit!.tasks.flatMap((task) => task.turns.flatMap((turn) => turn.toolCalls));
    expect(calls.find((call) => call.id === 'call-web')).toMatchObject({ args: { service: 'web', env: 'staging' }, proposedArgs: { service: 'web', env: 'prod' } });
  });
});
