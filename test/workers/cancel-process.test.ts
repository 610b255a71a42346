import { rmSync } from 'node:fs';
import { afterAll, expect, it } from 'vitest';
import { submitRun } from 'dualloop';
import { runCli } from '../cli/cli-process.js';
import { executionsOf, newWorkDir, slicesOf, startWorkerProcess, type WorkerProcess } from './worker-processes.js';
import { openStore, storedResult, storeUrl, untilCheckpoints, usePlaces, workflowEnds } from './worker-support.js';

/*
 * Cancel across processes (issue 19): `dualloop cancel` — a process of its own — reaches a run
 * that a worker process executes; the run ends `context_canceled` there, and is not run again.
 */

const place = usePlaces();
const workDir = newWorkDir();
const live: WorkerProcess[] = [];
afterAll(async () => {
  for (const child of live.splice(0)) {
    if (child.process.exitCode === null && child.process.signalCode === null) child.process.kill('SIGKILL');
    await child.exited;
  }
  rmSync(workDir, { recursive: true, force: true });
});

it('dualloop cancel <runId> --store postgres://… reaches the run in the worker process running it; it ends context_canceled, once', async () => {
  const where = place();
  // 10 tasks × 2 model calls × 1 s: the run is still going when the cancel arrives.
  const worker = startWorkerProcess('worker-1', workDir, where, { W_DELAY_MS: '1000' });
  live.push(worker);
  await worker.ready;
  const tasks = Array.from({ length: 10 }, (_, index) => `task ${index + 1}`);
  const { runId } = await submitRun({ ...where, workflow: 'noting', tasks });
  const store = openStore(where);
  await untilCheckpoints(store, runId, 1);

  const cancelled = await runCli(['cancel', runId, '--reason', 'not needed any more', '--store', storeUrl(where)], { cwd: workDir });
  expect(cancelled.code, cancelled.stderr).toBe(0);
  expect(cancelled.stdout).toContain(`cancel sent to run ${runId}`);

  const result = await storedResult(store, runId);
  expect(result.stop.reason).toBe('context_canceled');
  expect(result.stop.detail).toContain('not needed any more');
  expect(result.tasks.length).toBeLessThan(tasks.length);
  // The worker process ended its slice with that stop; it was the only one to run the run.
  while (slicesOf(workDir).length === 0) await new Promise((resolve) => setTimeout(resolve, 50));
  expect(slicesOf(workDir)).toEqual([expect.objectContaining({ runId, workerId: 'worker-1', outcome: 'ended', stop: expect.objectContaining({ reason: 'context_canceled' }) })]);
  const executions = executionsOf(workDir);
  expect(executions.every((execution) => execution.pid === worker.process.pid)).toBe(true);
  expect(executions.length).toBeLessThan(tasks.length);
  expect(await workflowEnds(store, runId)).toHaveLength(1);

  // Submitted again, it is not run again: the worker's slice finds it ended.
  await submitRun({ ...where, workflow: 'noting', runId });
  while (slicesOf(workDir).length < 2) await new Promise((resolve) => setTimeout(resolve, 50));
  expect(slicesOf(workDir)[1]).toMatchObject({ runId, outcome: 'finished', stop: expect.objectContaining({ reason: 'context_canceled' }) });
  expect(executionsOf(workDir)).toEqual(executions);
  expect(await workflowEnds(store, runId)).toHaveLength(1);
  await store.close();

  worker.process.kill('SIGTERM');
  expect(await worker.exited).toMatchObject({ code: 0 });
}, 90_000);
