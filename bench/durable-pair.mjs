/**
 * The durable pair interleaved: dualloop on `sqliteStore` and LangGraph.js on `SqliteSaver` in ONE
 * process, in alternating time-boxed batches (the order flipped every round, `gc()` before each
 * batch so neither pays for the other's garbage). Machine load then falls on both alike, which the
 * separate child processes of `npm run bench -- --quick` cannot promise: their `durableVsLangGraph`
 * moved between 4.2 and 6.2 across quick runs of one day. Not part of `npm run bench`; needs the
 * LangGraph peer installed (bench/peers/langgraph-sqlite, which `npm run bench` installs).
 *
 *   node --expose-gc bench/durable-pair.mjs        # ROUNDS=7 BUDGET=1000 (ms per batch)
 */
import { immediatePacer, TURNS } from './lib/workload.mjs';

const env = { pacer: immediatePacer, turns: TURNS };
const ROUNDS = Number(process.env.ROUNDS ?? 7);
const BUDGET_MS = Number(process.env.BUDGET ?? 1000);
const systems = [];
for (const name of ['dualloop-sqlite', 'langgraph-sqlite']) {
  const system = await (await import(`./systems/${name}.mjs`)).createSystem(env);
  systems.push({ name, system, samples: [] });
}

async function batch(entry, record) {
  globalThis.gc?.();
  const cpu = process.cpuUsage();
  const started = performance.now();
  let runs = 0;
  while (performance.now() - started < BUDGET_MS) {
    await entry.system.runOnce();
    runs += 1;
  }
  const used = process.cpuUsage(cpu);
  if (record) entry.samples.push((used.user + used.system) / (runs * TURNS));
}

for (const entry of systems) await batch(entry, false);
for (let round = 0; round < ROUNDS; round += 1) {
  for (const entry of round % 2 === 0 ? systems : [...systems].reverse()) await batch(entry, true);
}
const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];
for (const { name, samples } of systems) {
  process.stdout.write(`${name.padEnd(18)} ${median(samples).toFixed(0).padStart(6)} CPU µs/turn (median of ${samples.length}: ${samples.map((value) => value.toFixed(0)).join(' ')})\n`);
}
process.stdout.write(`durableVsLangGraph, interleaved: ${(median(systems[1].samples) / median(systems[0].samples)).toFixed(2)}\n`);
process.exit(0);
