import { rmSync } from 'node:fs';
import { afterAll, expect, it } from 'vitest';
import { submitRun } from 'dualloop';
import { runCli } from '../cli/cli-process.js';
import { jsonLines, newWorkDir, startWorkerProcess, type WorkerProcess } from './worker-processes.js';
import { openStore, storedResult, storeUrl, usePlaces, workflowEnds } from './worker-support.js';

/*
 * A poison run across processes (issue 19, ADR/0202): every slice of the run kills the worker
 * process running it (its tool ends the process with exit code 1 before its result is recorded,
 * so every resume calls it again). A supervisor, as a process manager would, replaces each worker
 * that dies. pg-boss retries the slice `retryLimit` times (1 here, no delay), then dead-letters it;
 * the replacement worker ends the run `error` / `worker_retries_exhausted`, which `dualloop runs`
 * and `dualloop audit` — other processes — show.
 */

const place = usePlaces();
const workDir = newWorkDir();
const live: WorkerProcess[] = [];
let supervising = true;
afterAll(async () => {
  supervising = false;
  for (const child of live.splice(0)) {
    child.process.kill('SIGKILL');
    await child.exited;
  }
  rmSync(workDir, { recursive: true, force: true });
});

it('a run whose every slice kills its worker process is retried retryLimit times, then dead-lettered: error / worker_retries_exhausted in dualloop runs and audit', async () => {
  const where = place();
  const env = { W_WORKFLOWS: 'noting,crashing', W_RETRY_LIMIT: '1' };
  const exits: { workerId: string; code: number | null }[] = [];
  let generation = 0;
  const spawn = (): WorkerProcess => {
    generation += 1;
    const child = startWorkerProcess(`worker-${generation}`, workDir, where, env);
    live.push(child);
    void child.exited.then((exit) => {
      exits.push({ workerId: child.workerId, code: exit.code });
      live.splice(live.indexOf(child), 1);
      if (supervising) spawn();
    });
    return child;
  };
  await spawn().ready;

  const { runId } = await submitRun({ ...where, workflow: 'crashing', tasks: ['survive the crash'] });
  const store = openStore(where);
  // Each crash is noticed when the slice's pg-boss heartbeat (10 s) is missed.
  const result = await storedResult(store, runId, () => true, 150_000);
  expect(result.stop).toMatchObject({ reason: 'error', code: 'worker_retries_exhausted', detail: 'worker_retries_exhausted' });
  expect(await workflowEnds(store, runId)).toHaveLength(1);

  // The first slice and its one retry each killed a different worker process; nothing else ran it.
  const crashes = jsonLines<{ runId: string }>(workDir, 'crashes.jsonl');
  expect(crashes.map((crash) => crash.runId)).toEqual([runId, runId]);
  expect(new Set(crashes.map((crash) => crash.pid)).size).toBe(2);
  expect(exits).toEqual([
    { workerId: crashes[0]!.workerId, code: 1 },
    { workerId: crashes[1]!.workerId, code: 1 },
  ]);

  // A replacement worker is healthy: an ordinary run still goes through.
  const other = await submitRun({ ...where, workflow: 'noting', tasks: ['after the poison'] });
  expect((await storedResult(store, other.runId)).stop.reason).toBe('goal_achieved');
  await store.close();

  const table = await runCli(['runs', '--store', storeUrl(where)], { cwd: workDir });
  expect(table.code, table.stderr).toBe(0);
  expect(table.stdout.split('\n').find((line) => line.startsWith(runId))).toMatch(/\serror \(worker_retries_exhausted\)\s/);
  const listed = await runCli(['runs', '--store', storeUrl(where), '--json'], { cwd: workDir });
  expect(JSON.parse(listed.stdout)).toContainEqual(expect.objectContaining({ runId, stop: expect.objectContaining({ reason: 'error', detail: 'worker_retries_exhausted' }) }));

  const audit = await runCli(['audit', runId, '--store', storeUrl(where)], { cwd: workDir });
  expect(audit.code, audit.stderr).toBe(0);
  expect(audit.stdout).toContain('worker_retries_exhausted');
  expect(audit.stdout).toContain('2 slices in a row crashed the worker');
  const audited = JSON.parse((await runCli(['audit', runId, '--store', storeUrl(where), '--json'], { cwd: workDir })).stdout);
  expect(audited.workflow.stop).toMatchObject({ reason: 'error', detail: 'worker_retries_exhausted' });
  expect(audited.errors).toEqual([expect.objectContaining({ scope: 'worker', message: expect.stringContaining('moved to the dead-letter queue') })]);
}, 180_000);
