import { rmSync } from 'node:fs';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { submitRun } from 'dualloop';
import { executionsOf, newWorkDir, reExecutedRecordedCalls, slicesOf, startWorkerProcess, type WorkerProcess } from './worker-processes.js';
import { openStore, storedResult, untilCheckpoints, usePlaces, workflowEnds } from './worker-support.js';

/*
 * Worker processes and signals (issue 19): SIGTERM drains, a SIGKILLed worker's run finishes on
 * another one, and a worker paused past its lease (SIGSTOP/SIGCONT) gets no write through.
 */

const place = usePlaces();
const workDirs: string[] = [];
const children: WorkerProcess[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.process.exitCode === null && child.process.signalCode === null) {
      child.process.kill('SIGCONT');
      child.process.kill('SIGKILL');
    }
    await child.exited;
  }
});
afterAll(() => {
  for (const dir of workDirs) rmSync(dir, { recursive: true, force: true });
});

function spawnWorker(workerId: string, workDir: string, where: ReturnType<typeof place>, env: Record<string, string> = {}): WorkerProcess {
  const child = startWorkerProcess(workerId, workDir, where, env);
  children.push(child);
  return child;
}

describe('worker processes', () => {
  it('SIGTERM drains: the run goes back to the queue at a turn boundary, the process exits 0, another worker finishes it once', async () => {
    const where = place();
    const workDir = newWorkDir();
    workDirs.push(workDir);
    const first = spawnWorker('first', workDir, where, { W_DELAY_MS: '200' });
    await first.ready;
    const { runId } = await submitRun({ ...where, workflow: 'noting', tasks: ['a', 'b', 'c'] });
    const store = openStore(where);
    await untilCheckpoints(store, runId, 1);
    first.process.kill('SIGTERM');
    expect(await first.exited).toMatchObject({ code: 0, signal: null });
    expect(slicesOf(workDir)).toEqual([expect.objectContaining({ runId, workerId: 'first', outcome: 'suspended' })]);
    expect(await store.loadResult(runId)).toBeUndefined();

    const second = spawnWorker('second', workDir, where, { W_DELAY_MS: '20' });
    await second.ready;
    const result = await storedResult(store, runId);
    expect(result.stop.reason).toBe('goal_achieved');
    expect(result.tasks.map((task) => task.output)).toEqual(['done 1', 'done 3', 'done 5']);
    expect(await workflowEnds(store, runId)).toHaveLength(1);
    const executions = executionsOf(workDir);
    expect(executions.map((execution) => execution.toolCallId).sort()).toEqual(['call-0', 'call-2', 'call-4']);
    second.process.kill('SIGTERM');
    expect(await second.exited).toMatchObject({ code: 0 });
    // The result is stored before the slice's job completes; the drain waited for it.
    expect(slicesOf(workDir).at(-1)).toMatchObject({ runId, workerId: 'second', outcome: 'ended' });
    await store.close();
  }, 60_000);

  it('SIGKILL: the job goes to another worker, which resumes from the last checkpoint without re-running a recorded tool', async () => {
    const where = place();
    const workDir = newWorkDir();
    workDirs.push(workDir);
    const first = spawnWorker('first', workDir, where, { W_DELAY_MS: '200' });
    await first.ready;
    const { runId } = await submitRun({ ...where, workflow: 'noting', tasks: ['a', 'b', 'c'] });
    const store = openStore(where);
    await untilCheckpoints(store, runId, 2);
    const killed = first.process.pid!;
    first.process.kill('SIGKILL');
    await first.exited;
    const second = spawnWorker('second', workDir, where, { W_DELAY_MS: '20' });
    await second.ready;
    // pg-boss hands the job on once its heartbeat (10 s) is missed.
    const result = await storedResult(store, runId);
    expect(result.stop.reason).toBe('goal_achieved');
    expect(result.tasks.map((task) => task.output)).toEqual(['done 1', 'done 3', 'done 5']);
    expect(await workflowEnds(store, runId)).toHaveLength(1);
    const executions = executionsOf(workDir);
    expect(reExecutedRecordedCalls(executions, new Set([killed]))).toEqual([]);
    expect(executions.filter((execution) => execution.workerId === 'first').length).toBeGreaterThan(0);
    while (slicesOf(workDir).length === 0) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(slicesOf(workDir)).toEqual([expect.objectContaining({ runId, workerId: 'second', outcome: 'ended' })]);
    await store.close();
  }, 90_000);

  it('a worker paused past its lease (SIGSTOP) loses the run to another worker and, woken (SIGCONT), cannot write', async () => {
    const where = place();
    const workDir = newWorkDir();
    workDirs.push(workDir);
    const first = spawnWorker('first', workDir, where, { W_DELAY_MS: '200', W_LEASE_MS: '2000' });
    await first.ready;
    const { runId } = await submitRun({ ...where, workflow: 'noting', tasks: ['a', 'b', 'c'] });
    const store = openStore(where);
    await untilCheckpoints(store, runId, 1);
    first.process.kill('SIGSTOP');
    const second = spawnWorker('second', workDir, where, { W_DELAY_MS: '20', W_LEASE_MS: '2000' });
    await second.ready;
    const result = await storedResult(store, runId);
    expect(result.stop.reason).toBe('goal_achieved');
    const events = await store.readEvents(runId);
    const checkpoints = await store.listCheckpoints(runId);

    first.process.kill('SIGCONT');
    // The woken worker learns it lost the lease and ends its slice without writing.
    const until = Date.now() + 30_000;
    while (!slicesOf(workDir).some((slice) => slice.workerId === 'first') && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(slicesOf(workDir).find((slice) => slice.workerId === 'first')).toMatchObject({ runId, outcome: 'lease_lost' });
    expect(await store.readEvents(runId)).toEqual(events);
    expect(await store.listCheckpoints(runId)).toEqual(checkpoints);
    expect(await store.loadResult(runId)).toEqual(result);
    expect(await workflowEnds(store, runId)).toHaveLength(1);
    // Nobody was killed: no tool call ran twice, the woken worker's included (ADR/0320).
    expect(reExecutedRecordedCalls(executionsOf(workDir), new Set())).toEqual([]);
    await store.close();
  }, 90_000);

  it('a lone worker paused past its lease, with nobody taking its runs over, still finishes every run once', async () => {
    const where = place();
    const workDir = newWorkDir();
    workDirs.push(workDir);
    const only = spawnWorker('only', workDir, where, { W_DELAY_MS: '30', W_LEASE_MS: '2000', W_CONCURRENCY: '3' });
    await only.ready;
    const runIds = ['paused-a', 'paused-b', 'paused-c'];
    for (const runId of runIds) await submitRun({ ...where, workflow: 'noting', tasks: ['a', 'b', 'c', 'd'], runId });
    const store = openStore(where);
    for (const runId of runIds) await untilCheckpoints(store, runId, 1);
    // Past the 2 s lease, short of pg-boss's 10 s heartbeat: no other worker is handed the slices.
    only.process.kill('SIGSTOP');
    await new Promise((resolve) => setTimeout(resolve, 3_500));
    only.process.kill('SIGCONT');

    // Whatever it learns first when it wakes — a refused write (lease_lost) or a renewal that
    // finds the lease still free — no run is left without a slice (ADR/0324).
    for (const runId of runIds) {
      const result = await storedResult(store, runId, () => true, 30_000);
      expect(result.stop.reason, runId).toBe('goal_achieved');
      expect(result.tasks.map((task) => task.output)).toEqual(['done 1', 'done 3', 'done 5', 'done 7']);
      expect(await workflowEnds(store, runId)).toHaveLength(1);
    }
    expect(reExecutedRecordedCalls(executionsOf(workDir), new Set())).toEqual([]);
    await store.close();
  }, 90_000);
});
