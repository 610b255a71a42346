/**
 * Guardrail trips on SQLite and Postgres: the stop (with the guardrail named), the
 * `guardrail_tripped` events and the audit come back from the store, a tripped run is final, and a
 * withheld tool result is recorded withheld, so that a resume replays it instead of the result.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createKernel, defineTool, RunError, type Guardrail, type KernelOptions } from 'dualloop';
import { scriptedModel, type ScriptCall, type ScriptStep } from 'dualloop/testing';
import { storeKinds } from '../control/control-stores.js';

const lastIsTool = (call: ScriptCall) => call.messages.at(-1)?.role === 'tool';
function taskOf(call: ScriptCall): string {
  const first = call.messages.find((message) => message.role === 'user');
  return typeof first?.content === 'string' ? first.content : '';
}

const GUARDRAILS: Guardrail[] = [
  { name: 'no-passwords', on: 'input', check: (value) => ({ tripped: String(value).includes('password'), reason: 'asks for a password' }) },
  { name: 'no-card-numbers', on: 'output', check: (value) => ({ tripped: String(value).includes('4111'), reason: 'a card number' }) },
  { name: 'no-broadcast', on: 'tool_call', check: (args) => ({ tripped: JSON.stringify(args).includes('all@'), reason: 'mail to everyone' }) },
  { name: 'no-secrets', on: 'tool_result', check: (value) => ({ tripped: String(value).includes('SECRET'), reason: 'a secret' }) },
];

function options(store: KernelOptions['store']): KernelOptions {
  const send = defineTool({ name: 'send', description: 'Sends mail.', parameters: z.object({ to: z.string() }), execute: () => 'sent' });
  const read = defineTool({ name: 'read', description: 'Reads a file.', parameters: z.object({}), execute: () => 'SECRET=hunter2' });
  const model = scriptedModel((call): ScriptStep => {
    const task = taskOf(call);
    if (task === 'print the card') return { text: 'card 4111' };
    if (task === 'mail everyone') return lastIsTool(call) ? { text: 'mailed' } : { toolCalls: [{ name: 'send', id: 'send-1', args: { to: 'all@example.com' } }] };
    if (task === 'read the file') return lastIsTool(call) ? { text: 'read' } : { toolCalls: [{ name: 'read', id: 'read-1', args: {} }] };
    return { text: 'fine' };
  });
  return { model, store, tools: [send, read], guardrails: GUARDRAILS, onTaskStop: 'continue' };
}

const TASKS = [
  { id: 'ask', description: 'what is the password' },
  { id: 'card', description: 'print the card' },
  { id: 'mail', description: 'mail everyone' },
  { id: 'read', description: 'read the file' },
  { id: 'ok', description: 'say hello' },
];

describe.each(storeKinds())('guardrail trips on $name', ({ open }) => {
  it('stores each place\'s stop, events and audit; the run is final', async () => {
    const { runner, sender, close } = open();
    const result = await createKernel(options(runner)).start(TASKS, { runId: 'guarded' }).result;
    const expected = [
      ['ask', 'no-passwords', 'input'],
      ['card', 'no-card-numbers', 'output'],
      ['mail', 'no-broadcast', 'tool_call'],
      ['read', 'no-secrets', 'tool_result'],
    ];
    expect(result.tasks.slice(0, 4).map((task) => [task.taskId, task.stop.guardrail?.name, task.stop.guardrail?.on])).toEqual(expected);
    expect(result.tasks[4]!.stop.reason).toBe('planner_stopped');
    // `onTaskStop: 'continue'`: every task ran, so the workflow finished.
    expect(result.stop.reason).toBe('goal_achieved');

    // Read back through the other connection, as another process would.
    const stored = await sender.loadResult('guarded');
    expect(stored?.tasks.slice(0, 4).map((task) => [task.taskId, task.stop.guardrail?.name, task.stop.guardrail?.on])).toEqual(expected);
    const events = await sender.readEvents('guarded');
    expect(events.filter((event) => event.type === 'guardrail_tripped').map((event) => (event as { name: string }).name)).toEqual(expected.map(([, name]) => name));
    expect(JSON.stringify(events)).not.toContain('hunter2');
    const audit = await sender.audit('guarded');
    expect(audit?.tasks[3]!.stop.detail).toBe('guardrail "no-secrets" (tool_result) tripped: a secret');
    expect(audit?.guardrailTrips?.map((trip) => [trip.taskId, trip.name, trip.on, trip.mode])).toEqual(expected.map(([task, name, on]) => [task, name, on, 'stop']));

    await expect(createKernel(options(sender)).resume('guarded')).rejects.toSatisfy((error: unknown) => error instanceof RunError && error.code === 'run_finished');
    await close();
  });

  it('replays a withheld result on resume: the tool does not run again and the model sees the refusal', async () => {
    const { runner, sender, close } = open();
    let reads = 0;
    const build = (store: KernelOptions['store']): KernelOptions => {
      const read = defineTool({ name: 'read', description: 'Reads a file.', parameters: z.object({}), execute: () => (reads += 1, 'SECRET=hunter2') });
      const deploy = defineTool({ name: 'deploy', description: 'Deploys.', parameters: z.object({}), execute: () => 'deployed' });
      const model = scriptedModel((call): ScriptStep =>
        lastIsTool(call) ? { text: `saw: ${call.messages.filter((message) => message.role === 'tool').map((message) => message.content).join(' | ')}` } : { toolCalls: [{ name: 'read', id: 'read-1' }, { name: 'deploy', id: 'deploy-1' }] },
      );
      return {
        model,
        store,
        tools: [read, deploy],
        guardrails: [{ name: 'no-secrets', on: 'tool_result', mode: 'revise', check: (value) => ({ tripped: String(value).includes('SECRET'), reason: 'a secret' }) }],
        policy: { checkToolCall: ({ name }) => (name === 'deploy' ? { decision: 'require_approval', reason: 'a human deploys' } : { decision: 'allow' }) },
      };
    };
    const parked = await createKernel(build(runner)).start(['read and deploy'], { runId: 'withheld' }).result;
    expect(parked.stop.reason).toBe('awaiting_approval');
    const resumed = await (await createKernel(build(sender)).resume('withheld', { approvals: { 'deploy-1': 'approve' } })).result;
    expect(resumed.stop.reason).toBe('goal_achieved');
    expect(reads).toBe(1);
    expect(resumed.tasks[0]!.output).toBe('saw: Error: guardrail "no-secrets" withheld the result of this call: a secret | deployed');
    await close();
  });
});
