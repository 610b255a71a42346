/**
 * The measurement protocols, run inside a child process that holds one system.
 *
 * sequential: `runs` runs one after another, the model answering at once; µs per turn =
 *   elapsed ÷ (runs × TURNS). A time cap may lower `runs` for slow systems (reported).
 * concurrent: `inFlight` runs started together, the model waiting `delayMs` per call; every run
 *   also waits inside its 5th call until all of them are there, then the child takes a full GC
 *   and reads the live heap: (heap − heap before the runs started) ÷ inFlight. The pause for that
 *   measurement is left out of the wall time.
 * setup, capacity, inflight: below.
 * Each protocol: a warm-up, then repetitions with a full GC before each.
 */
import { createBarrier, delayedPacer, immediatePacer, TURNS } from './workload.mjs';

function fullGc() {
  if (typeof globalThis.gc !== 'function') throw new Error('run the child with --expose-gc');
  globalThis.gc();
  globalThis.gc();
}

function liveHeap() {
  fullGc();
  return process.memoryUsage().heapUsed;
}

async function runSequential(system, runs) {
  const started = performance.now();
  for (let index = 0; index < runs; index += 1) await system.runOnce();
  return performance.now() - started;
}

/** Process CPU time (all threads, GC helpers included) in µs since `since`. */
function cpuMicroseconds(since) {
  const used = process.cpuUsage(since);
  return used.user + used.system;
}

/**
 * At least `runs` runs and at least `minMs` of them, so the JIT has settled — but no more than
 * `maxMs` once 10 runs are done (the slowest peers take 0.1 s a run); returns ms per run.
 */
async function warmUp(system, runs, minMs, maxMs = Infinity) {
  const started = performance.now();
  let done = 0;
  while ((done < runs || performance.now() - started < minMs) && !(done >= 10 && performance.now() - started > maxMs)) {
    await system.runOnce();
    done += 1;
  }
  return (performance.now() - started) / done;
}

/** Sequential µs per turn. */
export async function measureSequential(system, env, { runs, reps, warmupRuns, warmupMs, repBudgetMs }) {
  env.pacer = immediatePacer;
  await warmUp(system, warmupRuns, warmupMs, Math.max(warmupMs, repBudgetMs));
  // A system whose repetition would exceed the budget runs fewer runs; the rate stays comparable.
  const estimatedRunMs = await warmUp(system, 10, 0);
  const runsPerRep = estimatedRunMs * runs <= repBudgetMs ? runs : Math.max(20, Math.floor(repBudgetMs / estimatedRunMs));
  const samples = [];
  const cpuSamples = [];
  for (let rep = 0; rep < reps; rep += 1) {
    fullGc();
    const cpuBefore = process.cpuUsage();
    const elapsed = await runSequential(system, runsPerRep);
    cpuSamples.push(cpuMicroseconds(cpuBefore) / (runsPerRep * TURNS));
    samples.push((elapsed * 1000) / (runsPerRep * TURNS));
  }
  // CPU time moves less than wall time when other work shares the cores.
  return { usPerTurn: samples, cpuUsPerTurn: cpuSamples, runsPerRep };
}

async function concurrentPass(system, env, inFlight, delayMs, withHeap) {
  const before = withHeap ? liveHeap() : 0;
  let pausedMs = 0;
  let heapPerRun;
  const barrier = createBarrier(inFlight, () => {
    const pausedAt = performance.now();
    if (withHeap) heapPerRun = (liveHeap() - before) / inFlight;
    pausedMs += performance.now() - pausedAt;
  });
  env.pacer = delayedPacer(delayMs, barrier);
  const started = performance.now();
  const runs = [];
  for (let index = 0; index < inFlight; index += 1) runs.push(system.runOnce());
  await Promise.all(runs);
  const wallMs = performance.now() - started - pausedMs;
  if (barrier.arrived !== inFlight) throw new Error(`only ${barrier.arrived} of ${inFlight} runs reached the 5th model call`);
  return { wallMs, heapPerRun };
}

/**
 * Concurrent wall time and live heap per paused run. A system whose repetition is predicted (from
 * the warm-up pass) to take longer than `slowRepMs` runs `minReps` repetitions instead of `reps`:
 * the slowest peers need over a minute per repetition on two cores (ADR 0063).
 */
export async function measureConcurrent(system, env, { inFlight, reps, minReps, slowRepMs, delayMs, warmupRuns, warmupMs }) {
  env.pacer = immediatePacer;
  await warmUp(system, warmupRuns, warmupMs);
  const warmupInFlight = Math.min(inFlight, 500);
  const warmup = await concurrentPass(system, env, warmupInFlight, delayMs, false);
  const predictedRepMs = warmup.wallMs * (inFlight / warmupInFlight);
  const repCount = predictedRepMs > slowRepMs ? minReps : reps;
  const wallMs = [];
  const heapBytesPerRun = [];
  for (let rep = 0; rep < repCount; rep += 1) {
    fullGc();
    const pass = await concurrentPass(system, env, inFlight, delayMs, true);
    wallMs.push(pass.wallMs);
    heapBytesPerRun.push(pass.heapPerRun);
  }
  return { wallMs, heapBytesPerRun, idealMs: delayMs * TURNS, inFlight, reps: repCount };
}

/**
 * Per-run setup: µs per 1-turn run (the model answers with text at once), the same
 * repetitions as the sequential figure. run.mjs subtracts one turn of the standard workload.
 */
export async function measureSetup(system, env, { runs, reps, warmupRuns, warmupMs }) {
  env.pacer = immediatePacer;
  env.turns = 1;
  await warmUp(system, warmupRuns, warmupMs);
  const samples = [];
  const cpuSamples = [];
  for (let rep = 0; rep < reps; rep += 1) {
    fullGc();
    const cpuBefore = process.cpuUsage();
    samples.push((await runSequential(system, runs)) * 1000 / runs);
    cpuSamples.push(cpuMicroseconds(cpuBefore) / runs);
  }
  return { usPerRun: samples, cpuUsPerRun: cpuSamples, runs };
}

/**
 * Capacity: `inFlight` runs at once on the delayed model, one pass, paused at the
 * barrier for the live heap; reports the wall time and the process's peak resident memory.
 */
export async function measureCapacity(system, env, { inFlight, delayMs }) {
  env.pacer = immediatePacer;
  await warmUp(system, 20, 0);
  fullGc();
  const pass = await concurrentPass(system, env, inFlight, delayMs, true);
  return { inFlight, wallMs: pass.wallMs, heapBytesPerRun: pass.heapPerRun, maxRssBytes: process.resourceUsage().maxRSS * 1024 };
}

/**
 * Checkpointed turns per second with `levels[i]` runs in flight (ADR/0445). A round: that many runs
 * started together, the model taking `delayMs` a call, the clock stopped when the last one ended
 * (every checkpoint acknowledged: a run ends only then) — repeated back to back until the round
 * holds `minRunsPerRound` runs. turns/s = runs × TURNS ÷ wall time, and the process's CPU µs per
 * turn. Rounds, not a window over runs kept in flight: some systems' runs move in lockstep (with
 * 200 in flight LangGraph's checkpoints land late in the cycle), and a round spans the cycle.
 * Before the first level, runs one after another and 20 at once (the store's pool opens its
 * connections) warm up. `checkpointsPerRun`: what the store acknowledged per run, when the system
 * counts it.
 */
export async function measureInFlight(system, env, { levels, delayMs, rounds, minRunsPerRound, warmupRuns }) {
  env.pacer = immediatePacer;
  await warmUp(system, warmupRuns, 0);
  const before = system.checkpoints?.();
  const calibrationRuns = 10;
  await runSequential(system, calibrationRuns);
  const checkpointsPerRun = before === undefined ? undefined : (system.checkpoints() - before) / calibrationRuns;
  await Promise.all(Array.from({ length: 20 }, () => system.runOnce()));
  env.pacer = delayedPacer(delayMs);
  const results = [];
  for (const inFlight of levels) {
    const turnsPerSecond = [];
    const cpuUsPerTurn = [];
    // One run in flight is one run a round: a round then holds several such batches, back to back.
    const batches = Math.max(1, Math.ceil(minRunsPerRound / inFlight));
    for (let round = 0; round < rounds; round += 1) {
      fullGc();
      const cpuBefore = process.cpuUsage();
      const started = performance.now();
      for (let batch = 0; batch < batches; batch += 1) await Promise.all(Array.from({ length: inFlight }, () => system.runOnce()));
      const turns = batches * inFlight * TURNS;
      turnsPerSecond.push(turns / ((performance.now() - started) / 1000));
      cpuUsPerTurn.push(cpuMicroseconds(cpuBefore) / turns);
    }
    results.push({ inFlight, turnsPerSecond, cpuUsPerTurn, idealTurnsPerSecond: (inFlight * 1000) / delayMs });
  }
  return { levels: results, delayMs, rounds, ...(checkpointsPerRun === undefined ? {} : { checkpointsPerRun }) };
}
