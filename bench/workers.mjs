/**
 * The workers figure, one configuration per process (started by run.mjs):
 *   node bench/workers.mjs '<json spec>'
 * spec: { mode: 'kernel' | 'workers', workers, concurrency, runs, delayMs, url, schema, queueSchema }.
 *
 * - kernel: one in-process kernel on `postgresStore` runs `runs` runs of the bench workload on the
 *   `delayMs` model, `concurrency` at a time (what one worker with that concurrency runs at once).
 * - workers: `runs` runs are submitted first (`submitRun`, ten at a time; its time is reported
 *   apart), then `workers` worker processes (bench/lib/bench-worker.mjs) with `concurrency` slots
 *   each start; every slice waits at its start until all workers are up, and the clock runs from
 *   that go to the end of the last run.
 * Then every run is checked in the store: `goal_achieved` with the workload's answer, one
 * `workflow_end`. Prints one line `RESULT <json>`.
 */
import { benchKernelOptions, loadDualloop, runToEnd } from './systems/dualloop-common.mjs';
import { submitRuns } from './lib/submit-runs.mjs';
import { startWorkerProcess } from './lib/worker-process.mjs';
import { delayedPacer, expectFinal, TURNS } from './lib/workload.mjs';

const spec = JSON.parse(process.argv[2] ?? '{}');
const { createKernel, postgresStore, submitRun } = await loadDualloop();
const DEADLINE_MS = 10 * 60_000;
// A configuration that hangs (a worker that never gets ready, a run that never ends) fails with
// the phase it hung in, instead of holding the bench.
let phase = 'starting';
setTimeout(() => {
  process.stderr.write(`workers bench: ${spec.mode} × ${spec.workers}: still ${phase} after ${DEADLINE_MS / 1000} s\n`);
  process.exit(1);
}, DEADLINE_MS).unref();

async function inProcess(store) {
  const kernel = createKernel({ ...(await benchKernelOptions({ pacer: delayedPacer(spec.delayMs) })), store });
  let next = 0;
  const started = performance.now();
  const lane = async () => {
    while (next < spec.runs) {
      next += 1;
      await runToEnd(kernel, 'dualloop (in-process kernel)');
    }
  };
  await Promise.all(Array.from({ length: spec.concurrency }, lane));
  return { wallMs: performance.now() - started };
}

async function onWorkers() {
  const place = { connectionString: spec.url, schema: spec.schema, queueSchema: spec.queueSchema };
  const runIds = Array.from({ length: spec.runs }, (_, index) => `bench-${index}`);
  phase = 'submitting';
  const submitMs = await submitRuns(submitRun, place, runIds, { parallel: 10, tasks: ['sum'] });

  const ended = new Set();
  let allEnded;
  const done = new Promise((resolve) => (allEnded = resolve));
  const onSlice = (slice) => {
    if (slice.outcome === 'ended') ended.add(slice.runId);
    phase = `running (${ended.size} of ${spec.runs} runs ended)`;
    if (ended.size === spec.runs) allEnded();
  };
  const workers = Array.from({ length: spec.workers }, (_, index) => startWorkerProcess({ ...spec, gate: true, workerId: `worker-${index + 1}` }, { onSlice }));
  phase = 'starting the workers';
  await Promise.all(workers.map((worker) => worker.ready));
  phase = 'running';
  const started = performance.now();
  for (const worker of workers) worker.send('go');
  await done;
  const wallMs = performance.now() - started;
  phase = 'stopping the workers';
  const codes = await Promise.all(workers.map((worker) => worker.stop(60_000)));
  if (codes.some((code) => code !== 0)) throw new Error(`workers exited ${codes.join(', ')}`);
  return { wallMs, submitMs, runIds };
}

const store = postgresStore({ connectionString: spec.url }, { schema: spec.schema });
await store.ready();
phase = 'running';
const measured = spec.mode === 'kernel' ? await inProcess(store) : await onWorkers();
// Every run did the workload's work, and ended once.
phase = 'checking the runs';
const runIds = measured.runIds ?? (await store.listRuns({ limit: spec.runs + 10 })).map((run) => run.runId);
if (runIds.length !== spec.runs) throw new Error(`${runIds.length} runs in the store, ${spec.runs} expected`);
for (const runId of runIds) {
  const result = await store.loadResult(runId);
  expectFinal(result?.tasks[0]?.output, runId);
  const ends = (await store.readEvents(runId)).filter((event) => event.type === 'workflow_end').length;
  if (ends !== 1) throw new Error(`run ${runId} has ${ends} workflow_end events`);
}
await store.close();
const seconds = measured.wallMs / 1000;
const { runIds: _ids, ...figures } = measured;
const { url: _url, ...described } = spec;
process.stdout.write(`RESULT ${JSON.stringify({ ...described, ...figures, runsPerSecond: spec.runs / seconds, turnsPerSecond: (spec.runs * TURNS) / seconds })}\n`);
process.exit(0);
