import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createKernel, defineTool, isDualloopError, RunError, type CheckpointStore, type KernelOptions, type KernelEvent } from 'dualloop';
import { scriptedModel } from 'dualloop/testing';
import { storeKinds } from '../control/control-stores.js';

const search = (options: { description?: string; limit?: boolean; version?: string } = {}) =>
  defineTool({
    name: 'search',
    description: options.description ?? 'Searches.',
    parameters: options.limit === true ? z.object({ query: z.string(), limit: z.number() }) : z.object({ query: z.string() }),
    execute: () => 'found',
    ...(options.version === undefined ? {} : { version: options.version }),
  });

/** A run that parks for approval on its first call: resumable, so a later kernel can take it up. */
function parkedOptions(store: CheckpointStore, overrides: Partial<KernelOptions> = {}): KernelOptions {
  return {
    model: scriptedModel([{ toolCalls: [{ name: 'search', id: 'call-1', args: { query: 'otters' } }] }, { text: 'done' }], { modelId: 'model-a' }),
    store,
    tools: [search()],
    system: 'You search.',
    policy: { checkToolCall: () => ({ decision: 'require_approval', reason: 'a human looks first' }) },
    ...overrides,
  };
}

async function refusal(promise: Promise<unknown>): Promise<RunError> {
  try {
    await promise;
  } catch (error) {
    if (isDualloopError(error, 'workflow_changed')) return error as RunError;
    throw error;
  }
  throw new Error('the resume was not refused');
}

describe.each(storeKinds())('a changed workflow on $name', ({ open }) => {
  it('refuses each changed item with its own line, and continues on purpose with acceptChange, recording it', async () => {
    const { runner, sender, close } = open();
    expect((await createKernel(parkedOptions(runner)).start(['find otters'], { runId: 'deployed' }).result).stop.reason).toBe('awaiting_approval');
    const cases: [Partial<KernelOptions>, string][] = [
      [{ model: scriptedModel([], { modelId: 'model-b' }) }, 'model scripted/model-a → scripted/model-b'],
      [{ system: 'You search carefully.' }, 'system prompt changed'],
      [{ tools: [search({ limit: true })] }, 'tool "search": parameters changed (added "limit")'],
      [{ tools: [search({ description: 'Searches the web.' })] }, 'tool "search": description changed'],
      [{ tools: [] }, 'tool "search" removed'],
      [{ bounds: { inner: { maxTurns: 7 } } }, 'bounds changed (inner.maxTurns 25 → 7)'],
      [{ strategy: 'plan_execute' }, 'strategy react → plan_execute'],
      [{ policy: {} }, 'policy checkToolCall → none'],
      [{ fingerprint: { 'tools module': 'abc' } }, 'tools module changed'],
    ];
    for (const [overrides, line] of cases) {
      const error = await refusal(createKernel(parkedOptions(sender, overrides)).resume('deployed', { approvals: { 'call-1': 'approve' } }));
      expect(error.message).toContain(line);
      expect(error.message).toContain('acceptChange');
    }
    // Accepting: the run goes on, and the event says what changed and who accepted it.
    const run = await createKernel(parkedOptions(sender, { system: 'You search carefully.' })).resume('deployed', { approvals: { 'call-1': 'approve' }, acceptChange: true });
    const events: KernelEvent[] = [];
    for await (const event of run) events.push(event);
    expect((await run.result).stop.reason).toBe('goal_achieved');
    expect(events.find((event) => event.type === 'workflow_changed')).toMatchObject({ changes: ['system prompt changed'], acceptedBy: expect.any(String) });
    expect((await sender.audit('deployed'))?.workflowChanges).toEqual([{ at: expect.any(Number), changes: ['system prompt changed'], acceptedBy: expect.any(String) }]);
    await close();
  });

  it('does not refuse a tool changed under the same declared version', async () => {
    const { runner, sender, close } = open();
    const first = parkedOptions(runner, { tools: [search({ version: '2' })] });
    expect((await createKernel(first).start(['find otters'], { runId: 'versioned' }).result).stop.reason).toBe('awaiting_approval');
    const later = parkedOptions(sender, { tools: [search({ version: '2', limit: true })] });
    const resumed = await (await createKernel(later).resume('versioned', { approvals: { 'call-1': 'approve' } })).result;
    expect(resumed.stop.reason).toBe('goal_achieved');
    // Another version is a change: the author does not vouch for it.
    expect((await createKernel(first).start(['find otters'], { runId: 'bumped' }).result).stop.reason).toBe('awaiting_approval');
    const error = await refusal(createKernel(parkedOptions(sender, { tools: [search({ version: '3', limit: true })] })).resume('bumped'));
    expect(error.message).toContain('tool "search": parameters changed (added "limit"); version 2 → 3');
    await close();
  });

  it('refuses a fork under a changed workflow unless accepted', async () => {
    const { runner, sender, close } = open();
    const options = (store: CheckpointStore, model: string) => ({ model: scriptedModel([{ text: 'one' }, { text: 'two' }], { modelId: model }), store });
    expect((await createKernel(options(runner, 'a')).start(['first', 'second'], { runId: 'source' }).result).stop.reason).toBe('goal_achieved');
    const error = await refusal(createKernel(options(sender, 'b')).fork('source', { at: { task: 2 } }));
    expect(error.message).toContain('model scripted/a → scripted/b');
    const fork = await createKernel(options(sender, 'b')).fork('source', { at: { task: 2 }, acceptChange: true });
    expect((await fork.result).stop.reason).toBe('goal_achieved');
    await close();
  });
});
