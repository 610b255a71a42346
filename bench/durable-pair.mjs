/**
 * The durable pair interleaved: dualloop on `sqliteStore` and LangGraph.js on `SqliteSaver` in ONE
 * process, in alternating time-boxed batches (the order flipped every round, `gc()` before each
 * batch so neither pays for the other's garbage). Machine load then falls on both alike, which the
 * separate child processes of `npm run bench -- --quick` cannot promise: their `durableVsLangGraph`
 * moved between 4.2 and 6.2 across quick runs of one day. Not part of `npm run bench`; needs the
 * LangGraph peer installed (bench/peers/langgraph-sqlite, which `npm run bench` installs).
 *
 * Two figures: process CPU (what the bench's summary uses), and the main thread's alone. Since
 * ADR/0391 dualloop's store copies its WAL in a worker thread, whose CPU falls into whichever batch
 * runs meanwhile — sometimes LangGraph's — so the process figure is only fair over many rounds;
 * the main-thread figure leaves that copying (and both systems' GC helper threads) out.
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
  systems.push({ name, system, samples: [], mainSamples: [] });
}

async function batch(entry, record) {
  globalThis.gc?.();
  const cpu = process.cpuUsage();
  const main = process.threadCpuUsage();
  const started = performance.now();
  let runs = 0;
  while (performance.now() - started < BUDGET_MS) {
    await entry.system.runOnce();
    runs += 1;
  }
  const used = process.cpuUsage(cpu);
  const usedHere = process.threadCpuUsage(main);
  if (!record) return;
  entry.samples.push((used.user + used.system) / (runs * TURNS));
  entry.mainSamples.push((usedHere.user + usedHere.system) / (runs * TURNS));
}

for (const entry of systems) await batch(entry, false);
for (let round = 0; round < ROUNDS; round += 1) {
  for (const entry of round % 2 === 0 ? systems : [...systems].reverse()) await batch(entry, true);
}
const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];
for (const { name, samples, mainSamples } of systems) {
  process.stdout.write(`${name.padEnd(18)} ${median(samples).toFixed(0).padStart(6)} CPU µs/turn (median of ${samples.length}: ${samples.map((value) => value.toFixed(0)).join(' ')}); main thread ${median(mainSamples).toFixed(0)}\n`);
}
process.stdout.write(`durableVsLangGraph, interleaved: ${(median(systems[1].samples) / median(systems[0].samples)).toFixed(2)} (process CPU), ${(median(systems[1].mainSamples) / median(systems[0].mainSamples)).toFixed(2)} (main thread)\n`);
process.exit(0);
