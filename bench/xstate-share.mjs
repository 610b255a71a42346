/**
 * How much of a turn is XState's own work: the self time of xstate's functions per turn, side by
 * side for the given systems (default: dualloop's turn machine alone, the floor, dualloop), each
 * profiled in this process after a warm-up (V8's sampling profiler, 50 µs). Sampling inflates
 * absolute figures; compare the columns.
 *
 *   node bench/xstate-share.mjs [system …]
 */
import { sampleRuns } from './lib/sample-runs.mjs';
import { immediatePacer, TURNS } from './lib/workload.mjs';

process.env.DUALLOOP_UNBUNDLED = '1';
const names = process.argv.length > 2 ? process.argv.slice(2) : ['turn-machine-only', 'floor', 'dualloop'];
const RUNS = Number(process.env.RUNS ?? 1500);
const byFunction = new Map();
const totals = new Map();

for (const name of names) {
  const system = await (await import(`./systems/${name}.mjs`)).createSystem({ pacer: immediatePacer, turns: TURNS });
  for (let index = 0; index < 300; index += 1) await system.runOnce();
  const profile = await sampleRuns(system, RUNS, 50);
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  profile.samples.forEach((id, index) => {
    const frame = nodes.get(id).callFrame;
    const us = (profile.timeDeltas[index] ?? 0) / (RUNS * TURNS);
    totals.set(`${name} all`, (totals.get(`${name} all`) ?? 0) + us);
    if (!frame.url.includes('node_modules/xstate')) return;
    const row = byFunction.get(frame.functionName || '(anonymous)') ?? new Map();
    row.set(name, (row.get(name) ?? 0) + us);
    byFunction.set(frame.functionName || '(anonymous)', row);
    totals.set(name, (totals.get(name) ?? 0) + us);
  });
}

const cell = (value) => (value ?? 0).toFixed(1).padStart(Math.max(10, ...names.map((name) => name.length)) + 1);
const last = names[names.length - 1];
process.stdout.write(`${'xstate function, µs/turn'.padEnd(40)}${names.map((name) => name.padStart(Math.max(10, ...names.map((n) => n.length)) + 1)).join('')}\n`);
for (const [fn, row] of [...byFunction].sort((a, b) => (b[1].get(last) ?? 0) - (a[1].get(last) ?? 0)).slice(0, 20)) {
  process.stdout.write(`${fn.padEnd(40)}${names.map((name) => cell(row.get(name))).join('')}\n`);
}
process.stdout.write(`${'xstate, all functions'.padEnd(40)}${names.map((name) => cell(totals.get(name))).join('')}\n`);
process.stdout.write(`${'everything sampled'.padEnd(40)}${names.map((name) => cell(totals.get(`${name} all`))).join('')}\n`);
