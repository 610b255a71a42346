import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { approveRun, cancelRun, createKernel, defineTool, steerRun, type PolicyGate, type KernelEvent, type WorkflowRun } from 'dualloop';
import { collectRun, scriptedModel } from 'dualloop/testing';
import { failureOf } from '../store/conformance.js';
import { storeKinds } from './control-stores.js';

/** Resolves with the first event of the run that matches. */
function eventOf(run: WorkflowRun, match: (event: KernelEvent) => boolean): Promise<KernelEvent> {
  return new Promise((resolve) => {
    void (async () => {
      for await (const event of run) if (match(event)) return resolve(event);
    })();
  });
}

const needsApproval: PolicyGate = {
  checkToolCall: (request) => (request.name === 'deploy' ? { decision: 'require_approval', reason: 'deploys need a human' } : { decision: 'allow' }),
};

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

/** A tool that runs until its signal aborts: a run is mid-tool while it waits. */
const waitTool = defineTool({
  name: 'wait',
  description: 'Waits until cancelled.',
  parameters: z.object({}),
  execute: (_args, context) =>
    new Promise((resolve) => {
      const signal = context?.signal;
      if (signal?.aborted === true) resolve('cancelled');
      signal?.addEventListener('abort', () => resolve('cancelled'), { once: true });
    }),
});

describe.each(storeKinds())('control from another process: $name', ({ open }) => {
  it('cancel while the run is mid-tool stops it context_canceled, as abort() would', async () => {
    const { runner, sender, close } = open();
    const kernel = createKernel({ model: scriptedModel([{ toolCalls: [{ name: 'wait', args: {}, id: 'call-wait' }] }, { text: 'never' }]), tools: [waitTool], store: runner });
    const run = kernel.start(['wait for it'], { runId: 'cancel-me' });
    await eventOf(run, (event) => event.type === 'tool_execution_start');
    await cancelRun(sender, 'cancel-me', { reason: 'operator said so' });
    const { result } = await collectRun(run);
    expect(result.stop).toMatchObject({ reason: 'context_canceled', detail: 'cancelled from another process: operator said so' });
    expect((await sender.loadResult('cancel-me'))?.stop.reason).toBe('context_canceled');
    await close();
  });

  it('steer reaches the running run as steer() does: queued, then delivered to the next model call', async () => {
    const { runner, sender, close } = open();
    const model = scriptedModel(({ index }) => (index < 2 ? { toolCalls: [{ name: 'wait_a_bit', args: {} }], delayMs: 100 } : { text: 'done' }));
    const waitABit = defineTool({ name: 'wait_a_bit', description: 'waits 300 ms', parameters: z.object({}), execute: () => new Promise((resolve) => setTimeout(() => resolve('ok'), 300)) });
    const kernel = createKernel({ model, tools: [waitABit], store: runner });
    const run = kernel.start(['work'], { runId: 'steer-me' });
    const queued = eventOf(run, (event) => event.type === 'message_queued');
    await eventOf(run, (event) => event.type === 'tool_execution_start');
    await steerRun(sender, 'steer-me', 'use the blue one');
    expect(await queued).toMatchObject({ type: 'message_queued', queue: 'steering', content: 'use the blue one' });
    const { result } = await collectRun(run);
    expect(result.stop.reason).toBe('goal_achieved');
    const seen = model.calls.slice(1).some((call) => call.messages.some((message) => message.role === 'user' && message.content === 'use the blue one'));
    expect(seen).toBe(true);
    await close();
  });

  it('approve answers a parked run for its next resume; a second approval, a call not pending and a finished run are clear errors', async () => {
    const { runner, sender, close } = open();
    const { tool, deployed } = deployTool();
    const model = scriptedModel([{ toolCalls: [{ name: 'deploy', args: { service: 'api' }, id: 'call-deploy-1' }] }, { text: 'api deployed' }]);
    const kernel = createKernel({ model, tools: [tool], store: runner, policy: needsApproval });
    expect((await kernel.start(['ship it'], { runId: 'approve-me' }).result).stop.reason).toBe('awaiting_approval');

    expect((await failureOf(() => approveRun(sender, 'approve-me', { callId: 'call-other', answer: 'approve' }))).code).toBe('approval_not_pending');
    // Two approvals racing: exactly one is stored, the other is told the approval was answered.
    const race = await Promise.allSettled([approveRun(sender, 'approve-me', { answer: 'approve' }), approveRun(runner, 'approve-me', { callId: 'call-deploy-1', answer: 'reject' })]);
    expect(race.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
    const refused = race.find((outcome) => outcome.status === 'rejected') as PromiseRejectedResult;
    expect(refused.reason).toMatchObject({ code: expect.stringMatching(/^approval_(answered|not_pending)$/) });
    const winner = (race.find((outcome) => outcome.status === 'fulfilled') as PromiseFulfilledResult<string>).value;
    expect(winner).toBe('call-deploy-1');

    const resumed = await (await kernel.resume('approve-me')).result;
    const allowed = (race[0] as PromiseSettledResult<string>).status === 'fulfilled';
    expect(resumed.stop.reason).toBe('goal_achieved');
    expect(deployed).toEqual(allowed ? ['api'] : []);
    expect(deployed.length).toBeLessThanOrEqual(1);

    // The run finished: it takes no more commands, a resume is refused, its result is readable.
    expect((await failureOf(() => approveRun(sender, 'approve-me', { callId: 'call-deploy-1', answer: 'approve' }))).code).toBe('run_finished');
    expect((await failureOf(() => cancelRun(sender, 'approve-me'))).code).toBe('run_finished');
    expect((await failureOf(() => kernel.resume('approve-me'))).code).toBe('run_finished');
    expect(await sender.loadResult('approve-me')).toMatchObject({ stop: { reason: 'goal_achieved' } });
    await close();
  });

  it('approve while the run is mid-tool (not parked) is refused, naming why', async () => {
    const { runner, sender, close } = open();
    const kernel = createKernel({ model: scriptedModel([{ toolCalls: [{ name: 'wait', args: {}, id: 'call-wait' }] }, { text: 'x' }]), tools: [waitTool], store: runner });
    const run = kernel.start(['wait'], { runId: 'busy' });
    await eventOf(run, (event) => event.type === 'tool_execution_start');
    const error = await failureOf(() => approveRun(sender, 'busy', { callId: 'call-wait', answer: 'approve' }));
    expect(error).toMatchObject({ code: 'approval_not_pending', message: expect.stringContaining('not waiting for an approval') });
    run.abort();
    await collectRun(run);
    expect((await failureOf(() => cancelRun(sender, 'nobody'))).code).toBe('run_not_found');
    await close();
  });
});
