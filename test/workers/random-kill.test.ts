import { rmSync } from 'node:fs';
import { afterAll, expect, it } from 'vitest';
import { submitRun } from 'dualloop';
import { seededRandom } from '../durability/crash-harness.js';
import { executionsOf, newWorkDir, reExecutedRecordedCalls, slicesOf, startWorkerProcess, type WorkerProcess } from './worker-processes.js';
import { comparableResult, openStore, storedResult, usePlaces, workflowEnds } from './worker-support.js';

/*
 * The issue-19 acceptance test: three worker processes take 30 runs of the scripted workload
 * while a killer SIGKILLs a random worker every few hundred milliseconds and starts a new one in
 * its place. At the end every run has exactly one `workflow_end`, the result of an uninterrupted
 * run of the same workload (run first, through the same workers, before any kill: stop, task
 * outputs, turns, tool results and every counter but runtimes), and no recorded tool call was
 * executed twice (executions are counted in a side file). The
 * kill schedule is seeded, so a failure can be replayed; the killing stops after a bounded number
 * of kills, so the test ends.
 */

const place = usePlaces();
const workDir = newWorkDir();
const live: WorkerProcess[] = [];
afterAll(async () => {
  for (const child of live.splice(0)) {
    child.process.kill('SIGKILL');
    await child.exited;
  }
  rmSync(workDir, { recursive: true, force: true });
});

const RUNS = 30;
const KILLS = 10;
const WORKERS = 3;

it('3 workers, 30 runs, a random worker SIGKILLed and restarted every few hundred ms: every run ends once, as uninterrupted, no recorded tool re-run', async () => {
  const where = place();
  const env = { W_DELAY_MS: '150', W_CONCURRENCY: '2', W_RETRY_LIMIT: '20' };
  let generation = 0;
  const spawn = () => {
    generation += 1;
    const child = startWorkerProcess(`worker-${generation}`, workDir, where, env);
    live.push(child);
    return child;
  };
  for (let index = 0; index < WORKERS; index += 1) spawn();
  await Promise.all(live.map((child) => child.ready));

  // The uninterrupted run: the same workload, no kill while it runs.
  const store = openStore(where);
  await submitRun({ ...where, workflow: 'noting', tasks: ['a', 'b', 'c'], runId: 'reference-run' });
  const reference = await storedResult(store, 'reference-run');
  expect(reference.stop.reason).toBe('goal_achieved');
  expect(reference.tasks.map((task) => task.output)).toEqual(['done 1', 'done 3', 'done 5']);
  expect(executionsOf(workDir).map((execution) => execution.runId)).toEqual(['reference-run', 'reference-run', 'reference-run']);
  // (The result is stored before the slice reports its end.)
  while (slicesOf(workDir).length === 0) await new Promise((resolve) => setTimeout(resolve, 50));
  expect(slicesOf(workDir)).toEqual([expect.objectContaining({ runId: 'reference-run', outcome: 'ended' })]);

  const runIds = Array.from({ length: RUNS }, (_, index) => `kill-run-${index}`);
  // Submitted ten at a time, so that most runs are still running when the killing starts.
  const submitting = performance.now();
  for (let first = 0; first < RUNS; first += 10) await Promise.all(runIds.slice(first, first + 10).map((runId) => submitRun({ ...where, workflow: 'noting', tasks: ['a', 'b', 'c'], runId })));
  const submittedMs = performance.now() - submitting;

  const random = seededRandom(19);
  const killed = new Set<number>();
  for (let kill = 0; kill < KILLS; kill += 1) {
    await new Promise((resolve) => setTimeout(resolve, 200 + Math.floor(random() * 300)));
    const victim = live.splice(Math.floor(random() * live.length), 1)[0]!;
    killed.add(victim.process.pid!);
    victim.process.kill('SIGKILL');
    await victim.exited;
    spawn();
  }

  for (const runId of runIds) {
    const result = await storedResult(store, runId, () => true, 120_000);
    expect(comparableResult(result), runId).toEqual(comparableResult(reference));
    expect(await workflowEnds(store, runId), runId).toHaveLength(1);
  }
  const executions = executionsOf(workDir).filter((execution) => execution.runId !== 'reference-run');
  expect(reExecutedRecordedCalls(executions, killed)).toEqual([]);
  // Every call of every run executed (at least once; more only when cut by a kill before it was recorded).
  expect(new Set(executions.map((execution) => `${execution.runId}/${execution.toolCallId}`)).size).toBe(RUNS * 3);
  // The kills did land on running slices: some runs were finished by a worker that did not start them.
  const finishers = new Map(slicesOf(workDir).filter((slice) => slice.outcome === 'ended').map((slice) => [slice.runId, slice.workerId]));
  // (A worker killed right after a run ended may not have reported that slice: the store is the truth.)
  // Runs a killed worker had begun (it executed a tool of theirs) and another worker finished.
  const takenOver = runIds.filter((runId) => executions.some((execution) => execution.runId === runId && killed.has(execution.pid) && execution.workerId !== finishers.get(runId)));
  expect(takenOver.length).toBeGreaterThan(0);
  process.stdout.write(`random kill: ${RUNS} runs submitted in ${Math.round(submittedMs)} ms, ${killed.size} kills, ${takenOver.length} runs resumed by another worker, ${executions.length - RUNS * 3} executions cut by a kill and run again\n`);
  await store.close();

  for (const child of live.splice(0)) {
    child.process.kill('SIGTERM');
    expect(await child.exited).toMatchObject({ code: 0 });
  }
}, 180_000);
