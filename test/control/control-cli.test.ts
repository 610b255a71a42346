import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createKernel, defineTool, type PolicyGate } from 'dualloop';
import { collectRun, scriptedModel } from 'dualloop/testing';
import { runCli } from '../cli/cli-process.js';
import { storeKinds } from './control-stores.js';

const waitTool = defineTool({
  name: 'wait',
  description: 'Waits until cancelled.',
  parameters: z.object({}),
  execute: (_args, context) => new Promise((resolve) => context?.signal?.addEventListener('abort', () => resolve('cancelled'), { once: true })),
});
const needsApproval: PolicyGate = { checkToolCall: () => ({ decision: 'require_approval', reason: 'needs a human' }) };

describe.each(storeKinds())('dualloop cancel / steer / approve against $name', ({ open }) => {
  it('cancels and steers a run another process is running; approves a parked one; refuses what cannot be done', async () => {
    const { runner, sender, target, close } = open();
    const cwd = tmpdir();
    const kernel = createKernel({ model: scriptedModel([{ toolCalls: [{ name: 'wait', args: {}, id: 'call-wait' }] }, { text: 'x' }]), tools: [waitTool], store: runner });
    const run = kernel.start(['wait'], { runId: 'cli-run' });
    await new Promise<void>((resolve) => {
      void (async () => {
        for await (const event of run) if (event.type === 'tool_execution_start') return resolve();
      })();
    });

    const steered = await runCli(['steer', 'cli-run', 'look left', '--store', target], { cwd });
    expect(steered, steered.stderr).toMatchObject({ code: 0, stdout: 'steering message queued for run cli-run\n' });
    const cancelled = await runCli(['cancel', 'cli-run', '--store', target, '--reason', 'enough'], { cwd });
    expect(cancelled, cancelled.stderr).toMatchObject({ code: 0, stdout: 'cancel sent to run cli-run\n' });
    const { result } = await collectRun(run);
    expect(result.stop).toMatchObject({ reason: 'context_canceled', detail: 'cancelled from another process: enough' });
    const logged = await sender.readEvents('cli-run');
    expect(logged.some((event) => event.type === 'message_queued' && event.content === 'look left')).toBe(true);

    const again = await runCli(['cancel', 'cli-run', '--store', target], { cwd });
    expect(again.code).toBe(0); // context_canceled is resumable: the cancel waits for the next resume

    const parking = createKernel({ model: scriptedModel([{ toolCalls: [{ name: 'wait', args: {}, id: 'call-gated' }] }, { text: 'done' }]), tools: [waitTool], store: runner, policy: needsApproval });
    expect((await parking.start(['gated'], { runId: 'parked-run' }).result).stop.reason).toBe('awaiting_approval');
    const usage = await runCli(['approve', 'parked-run', '--store', target], { cwd });
    expect(usage.code).toBe(64);
    expect(usage.stderr).toContain('--allow or --deny');
    const approved = await runCli(['approve', 'parked-run', '--deny', '--reason', 'not today', '--store', target], { cwd });
    expect(approved, approved.stderr).toMatchObject({ code: 0 });
    expect(approved.stdout).toContain('approval call-gated of run parked-run: denied');
    const twice = await runCli(['approve', 'parked-run', '--call', 'call-gated', '--allow', '--store', target], { cwd });
    expect(twice.code).toBe(64);
    expect(twice.stderr).toContain('[approval_answered]');
    expect(((await (sender as unknown as import('dualloop').ControlChannel).approvalAnswers('parked-run')) as ReadonlyMap<string, string>).get('call-gated')).toBe('reject');
    await close();
  });
});
