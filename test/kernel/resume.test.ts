import { describe, expect, it } from 'vitest';
import { createKernel, memoryStore, RunError } from 'dualloop';
import { scriptedModel } from 'dualloop/testing';
import { countingTool, waitForEvent } from '../support/kernel-fixtures.js';

describe('resume in process', () => {
  it('continues a cancelled run from its last turn: finished work is not redone, counters continue', async () => {
    const store = memoryStore();
    const { tool, executed } = countingTool();
    // The call at index 2 hangs the first time only, like a provider that stalls once.
    let stalled = false;
    const steps = [
      { text: 'task one done', usage: { inputTokens: 10, outputTokens: 1 } },
      { toolCalls: [{ name: 'step', args: { n: 1 } }], usage: { inputTokens: 10, outputTokens: 1 } },
      { text: 'task two done' },
    ];
    const model = scriptedModel(({ index }) => {
      if (index === 2 && !stalled) {
        stalled = true;
        return { text: 'slow', delayMs: 60_000 };
      }
      return steps[index]!;
    });
    const script = model.calls;
    const kernel = createKernel({ model, tools: [tool], store });
    const run = kernel.start(['one', 'two'], { runId: 'cancel-me' });
    await waitForEvent(run, (event) => event.type === 'message_start' && event.taskId === 'task-2' && event.turn === 2);
    run.abort('operator stop');
    expect((await run.result).stop.reason).toBe('context_canceled');

    const resumedRun = await kernel.resume('cancel-me');
    const resumed = await resumedRun.result;
    expect(resumed.stop.reason).toBe('goal_achieved');
    expect(resumed.tasks.map((task) => task.stop.reason)).toEqual(['planner_stopped', 'planner_stopped']);
    expect(executed).toHaveLength(1);
    // Calls: task 1, task 2 turn 1, the cancelled call, then its replay (same index) on resume.
    expect(script.map((call) => call.index)).toEqual([0, 1, 2, 2]);
    expect(resumed.tasks[1]!.turnCount).toBe(2);
    expect(resumed.metrics).toMatchObject({ workflowSteps: 2, turns: 3, toolCalls: 1, inputTokens: 20 });
  });

  it('does not lose a follow-up queued before the abort', async () => {
    const store = memoryStore();
    let stalled = false;
    const model = scriptedModel(({ index }) => {
      if (!stalled) {
        stalled = true;
        return { text: 'slow', delayMs: 60_000 };
      }
      return index === 0 ? { text: 'first' } : { text: 'answering the follow-up' };
    });
    const kernel = createKernel({ model, store });
    const run = kernel.start(['one'], { runId: 'queued' });
    await waitForEvent(run, (event) => event.type === 'message_start');
    run.followUp('and one more thing');
    run.abort();
    await run.result;

    const resumed = await (await kernel.resume('queued')).result;
    expect(resumed.stop.reason).toBe('goal_achieved');
    expect(model.calls).toHaveLength(3);
    expect(model.calls[2]!.messages.some((message) => message.role === 'user' && message.content === 'and one more thing')).toBe(true);
  });

  it('refuses unknown runs, finished runs and a run held by another resumer, with RunError codes', async () => {
    const store = memoryStore();
    const kernel = createKernel({ model: scriptedModel([{ text: 'done' }, { text: 'slow', delayMs: 60_000 }]), store });
    await expect(kernel.resume('nope')).rejects.toMatchObject({ name: 'RunError', code: 'run_not_found' });

    await kernel.start(['one'], { runId: 'finished' }).result;
    await expect(kernel.resume('finished')).rejects.toMatchObject({ code: 'run_finished' });

    const other = createKernel({ model: scriptedModel([{ text: 'slow', delayMs: 60_000 }]), store });
    const running = other.start(['one'], { runId: 'busy' });
    await waitForEvent(running, (event) => event.type === 'message_start');
    const refused = await kernel.resume('busy').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(RunError);
    expect((refused as RunError).code).toBe('run_held');
    expect((refused as RunError).message).toMatch(/held by .*pid-/);
    running.abort();
    await running.result;
  });

  it('lets exactly one of two concurrent resumes proceed', async () => {
    const store = memoryStore();
    const first = createKernel({ model: scriptedModel([{ text: 'slow', delayMs: 60_000 }, { text: 'done' }]), store });
    const run = first.start(['one'], { runId: 'contended' });
    await waitForEvent(run, (event) => event.type === 'message_start');
    run.abort();
    await run.result;

    const a = createKernel({ model: scriptedModel([{ text: 'a' }, { text: 'a' }]), store });
    const b = createKernel({ model: scriptedModel([{ text: 'b' }, { text: 'b' }]), store });
    const outcomes = await Promise.allSettled([a.resume('contended'), b.resume('contended')]);
    const won = outcomes.filter((outcome) => outcome.status === 'fulfilled');
    const lost = outcomes.filter((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(1);
    expect(lost[0]!.reason).toMatchObject({ code: 'run_held' });
    await (won[0] as PromiseFulfilledResult<Awaited<ReturnType<typeof a.resume>>>).value.result;
  });
});

describe('leases of dead holders', () => {
  async function deadPid(): Promise<number> {
    const { spawn } = await import('node:child_process');
    const child = spawn(process.execPath, ['-e', '']);
    await new Promise((resolve) => child.on('exit', resolve));
    return child.pid!;
  }

  it('takes over at once from a holder process that died on this host, but not from a live one', async () => {
    const { hostname } = await import('node:os');
    const store = memoryStore();
    const first = createKernel({ model: scriptedModel([{ text: 'slow', delayMs: 60_000 }, { text: 'done' }]), store });
    const run = first.start(['one'], { runId: 'orphaned' });
    await waitForEvent(run, (event) => event.type === 'message_start');
    run.abort();
    await run.result;

    // A live process on this host (our parent) holds the lease: refused.
    const live = `${hostname()}/pid-${process.ppid}/live`;
    store.acquireLease('orphaned', live, 30_000);
    const kernel = createKernel({ model: scriptedModel([{ text: 'done' }]), store });
    await expect(kernel.resume('orphaned')).rejects.toMatchObject({ code: 'run_held' });

    // A process that has since exited holds it: taken over without waiting for the expiry.
    store.acquireLease('orphaned', `${hostname()}/pid-${await deadPid()}/dead`, 30_000, { takeOverFrom: live });
    const resumed = await (await kernel.resume('orphaned')).result;
    expect(resumed.stop.reason).toBe('goal_achieved');
  });

  it('ignores abort, steer and follow-up after the run ended', async () => {
    const run = createKernel({ model: scriptedModel([{ text: 'x' }]) }).start(['a']);
    await run.result;
    expect(() => {
      run.abort();
      run.steer('late');
      run.followUp('late');
      run.clearAllQueues();
    }).not.toThrow();
  });
});
