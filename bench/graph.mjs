/**
 * The graph workload (docs/performance.md): ten independent tasks with maxParallelTasks 10 beside
 * one such task alone, on a 20 ms model, in one process. Each task is the bench's 10-turn `add`
 * workload. The ratio of their wall times says whether the branches really overlap (1.0: ten
 * tasks take as long as one; 10: one after another).
 *
 *   node --expose-gc bench/graph.mjs '{"reps":5,"delayMs":20}'
 * Prints one line `RESULT <json>`.
 */
import { benchKernelOptions, loadDualloop } from './systems/dualloop-common.mjs';
import { summarize } from './lib/stats.mjs';
import { TURNS } from './lib/workload.mjs';

const spec = JSON.parse(process.argv[2] ?? '{}');
const reps = spec.reps ?? 5;
const delayMs = spec.delayMs ?? 20;
const branches = spec.branches ?? 10;

const dualloop = await loadDualloop();
const pacer = { wait: () => new Promise((resolve) => setTimeout(resolve, delayMs)) };
const options = await benchKernelOptions({ pacer, turns: TURNS }, dualloop);
const kernel = dualloop.createKernel({ ...options, bounds: { ...options.bounds, outer: { maxParallelTasks: branches } } });

async function wallMs(taskCount) {
  const tasks = Array.from({ length: taskCount }, (_, index) => ({ id: `sum-${index}`, description: 'sum', dependsOn: [] }));
  const started = performance.now();
  const result = await kernel.start(tasks).result;
  const elapsed = performance.now() - started;
  if (result.stop.reason !== 'goal_achieved' || result.tasks.length !== taskCount) throw new Error(`graph run ended ${result.stop.reason}: ${result.stop.detail}`);
  return elapsed;
}

await wallMs(1);
await wallMs(branches);
const one = [];
const many = [];
for (let rep = 0; rep < reps; rep += 1) {
  one.push(await wallMs(1));
  many.push(await wallMs(branches));
}
const ratio = summarize(many.map((value, index) => value / one[index]));
process.stdout.write(`RESULT ${JSON.stringify({ branches, delayMs, turns: TURNS, oneTaskMs: summarize(one), graphMs: summarize(many), ratio })}\n`);
process.exit(0);
