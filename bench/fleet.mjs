/**
 * The fleet figure (ADR/0446), in its own process (started by run.mjs):
 *   node bench/fleet.mjs '<json spec>'
 * How many runs one worker process (`createWorker`, pg-boss, lib/bench-worker.mjs) and one
 * Postgres carry when the model takes `delayMs` (1 s) a call, before checkpointed turns/s falls
 * below `threshold` (0.9) of the ideal — runs ÷ `delayMs`: every run one turn per model call.
 *
 * The runs are long (`tasksPerRun` 10-turn tasks) and reused from step to step: a pool submitted
 * through `submitRun` (grown when a step needs more, while that step's worker starts), run by a
 * fresh worker process with `concurrency` = the step's size, drained back into the queue at the
 * step's end. A step: the ramp (until that many runs have reached a model call in this worker, at
 * most `rampTimeoutMs`), `settleMs`,
 * then one window of `windowMs` over which the worker counts the checkpoints the store
 * acknowledged (one per turn: each turn's, the task's last in the task checkpoint). It holds when
 * turns/s ≥ threshold × ideal and no run ended in the window. The search doubles from `start` while
 * steps hold (up to `cap`), halves while they fail (down to `minRuns`), then bisects `bisections`
 * times between the largest size that held and the smallest that failed; at most `maxSteps` steps,
 * and none after a worker that did not drain within `drainTimeoutMs` (it is killed).
 * Prints one line `RESULT <json>`; `fleetRuns` is the largest size that held (0 when none did).
 */
import { loadDualloop } from './systems/dualloop-common.mjs';
import { submitRuns } from './lib/submit-runs.mjs';
import { startWorkerProcess } from './lib/worker-process.mjs';

const spec = JSON.parse(process.argv[2] ?? '{}');
const { submitRun } = await loadDualloop();
const place = { connectionString: spec.url, schema: spec.schema, queueSchema: spec.queueSchema };
const tasks = Array.from({ length: spec.tasksPerRun }, (_, index) => `sum, part ${index + 1}`);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
let phase = 'starting';
setTimeout(() => {
  process.stderr.write(`fleet bench: still ${phase} after ${spec.deadlineMs / 1000} s\n`);
  process.exit(1);
}, spec.deadlineMs).unref();

let submitted = 0;
let submitMs = 0;
async function growPool(size) {
  if (size <= submitted) return;
  const runIds = Array.from({ length: size - submitted }, (_, index) => `fleet-${submitted + index}`);
  submitted = size;
  submitMs += await submitRuns(submitRun, place, runIds, { parallel: spec.submitParallel, tasks });
}

async function window(worker, runs) {
  await sleep(spec.settleMs);
  const from = await worker.stats();
  await sleep(spec.windowMs);
  const to = await worker.stats();
  const turns = to.checkpoints - from.checkpoints;
  const turnsPerSecond = turns / ((to.at - from.at) / 1000);
  const idealTurnsPerSecond = (runs * 1000) / spec.delayMs;
  const endedInWindow = to.ended - from.ended;
  return {
    turnsPerSecond,
    idealTurnsPerSecond,
    ofIdeal: turnsPerSecond / idealTurnsPerSecond,
    endedInWindow,
    workerCpuUsPerTurn: turns === 0 ? null : (to.cpuUs - from.cpuUs) / turns,
    workerRssMiB: Math.round(to.rssBytes / 2 ** 20),
    slices: to.stops,
    held: turnsPerSecond >= spec.threshold * idealTurnsPerSecond && endedInWindow === 0,
  };
}

async function step(runs) {
  phase = `starting a worker for ${runs} runs`;
  const started = performance.now();
  const worker = startWorkerProcess({ url: spec.url, schema: spec.schema, queueSchema: spec.queueSchema, concurrency: runs, delayMs: spec.delayMs, workerId: `fleet-${runs}`, countCheckpoints: true });
  try {
    await worker.ready;
  } catch (error) {
    // A worker that could not start ends the search: the step did not hold, and says why.
    return { runs, held: false, note: error.message, drainExit: 'not started' };
  }
  phase = `ramping up to ${runs} runs`;
  const pooling = growPool(runs);
  let stats = await worker.stats();
  while (stats.calling < runs && performance.now() - started < spec.rampTimeoutMs) {
    await sleep(250);
    stats = await worker.stats();
  }
  await pooling;
  const rampMs = performance.now() - started;
  const inFlight = stats.calling;
  phase = `measuring ${runs} runs`;
  const figure = inFlight < runs ? { held: false, note: `only ${inFlight} of ${runs} runs calling their model after ${Math.round(rampMs / 1000)} s` } : await window(worker, runs);
  phase = `draining ${runs} runs`;
  const draining = performance.now();
  const exit = await worker.stop(spec.drainTimeoutMs);
  return { runs, rampMs: Math.round(rampMs), ...figure, drainMs: Math.round(performance.now() - draining), ...(exit === 0 ? {} : { drainExit: exit }) };
}

const steps = [];
const attempt = async (runs) => {
  const result = await step(runs);
  steps.push(result);
  return result.held;
};
let held;
let failed;
let runs = spec.start;
// A worker that had to be killed leaves its runs leased and its slices active for a while: the
// next step would find them held, so the search ends there.
const drained = () => steps.at(-1).drainExit === undefined;
while (steps.length < spec.maxSteps) {
  if (await attempt(runs)) {
    held = runs;
    if (!drained() || failed !== undefined || runs * 2 > spec.cap) break;
    runs *= 2;
  } else {
    failed = runs;
    if (!drained() || held !== undefined || Math.floor(runs / 2) < spec.minRuns) break;
    runs = Math.floor(runs / 2);
  }
}
for (let bisection = 0; bisection < spec.bisections && held !== undefined && failed !== undefined && steps.length < spec.maxSteps && drained(); bisection += 1) {
  const middle = Math.round((held + failed) / 20) * 10;
  if (middle <= held || middle >= failed) break;
  if (await attempt(middle)) held = middle;
  else failed = middle;
}
const { url: _url, ...described } = spec;
process.stdout.write(`RESULT ${JSON.stringify({ ...described, fleetRuns: held ?? 0, smallestFailed: failed ?? null, submitted, submitMs: Math.round(submitMs), steps })}\n`);
process.exit(0);
