/**
 * Interleaved A/B, for a change to the hot path: the floor, then each given system, run in ONE
 * process in alternating batches, so that load from other processes falls on all of them alike
 * (on a shared machine the separate child processes of run.mjs move by tens of percent between
 * runs). Prints CPU µs per turn of each and its ratio to the floor's.
 *
 *   node bench/ab.mjs [system | path of a dualloop checkout with dist/ built] …
 *   node bench/ab.mjs dualloop turn-machine-only /tmp/old-checkout
 *   STORE=sqlite node bench/ab.mjs /tmp/old-checkout /path/to/this-checkout
 *
 * A path loads that checkout's tsc build (dist/src, as DUALLOOP_ROOT does for run.mjs) with a
 * memoryStore, or with STORE=sqlite a sqliteStore in a fresh file. The order of the systems moves
 * their figures by up to ~10 %: run both orders. Not part of `npm run bench`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { immediatePacer, TURNS } from './lib/workload.mjs';

const BATCH = 20;
const ROUNDS = Number(process.env.ROUNDS ?? 40);
const env = { pacer: immediatePacer, turns: TURNS };

async function load(name) {
  if (!name.includes('/')) return (await import(`./systems/${name}.mjs`)).createSystem(env);
  // Another checkout: its own dist/, loaded through the same bench code.
  const root = name.replace(/\/$/, '');
  const dualloop = await import(pathToFileURL(`${root}/dist/src/index.js`).href);
  process.env.DUALLOOP_ROOT = root;
  const common = await import(`./systems/dualloop-common.mjs?root=${encodeURIComponent(root)}`);
  const kernel = dualloop.createKernel({ ...(await common.benchKernelOptions(env, dualloop)), store: checkoutStore(dualloop) });
  return { runOnce: () => common.runToEnd(kernel, root) };
}

function checkoutStore({ memoryStore, sqliteStore }) {
  if (process.env.STORE !== 'sqlite') return memoryStore();
  const directory = mkdtempSync(join(tmpdir(), 'dualloop-ab-'));
  process.on('exit', () => rmSync(directory, { recursive: true, force: true }));
  return sqliteStore({ path: join(directory, 'ab.db') });
}

const names = ['floor', ...(process.argv.length > 2 ? process.argv.slice(2) : ['dualloop'])];
const systems = [];
for (const name of names) systems.push({ name, system: await load(name), cpuUs: 0, runs: 0 });
for (const entry of systems) for (let index = 0; index < 5 * BATCH; index += 1) await entry.system.runOnce();
for (let round = 0; round < ROUNDS; round += 1) {
  for (const entry of systems) {
    const before = process.cpuUsage();
    for (let index = 0; index < BATCH; index += 1) await entry.system.runOnce();
    const used = process.cpuUsage(before);
    entry.cpuUs += used.user + used.system;
    entry.runs += BATCH;
  }
}
const floor = systems[0];
for (const { name, cpuUs, runs } of systems) {
  process.stdout.write(`${name.padEnd(28)} ${(cpuUs / runs / TURNS).toFixed(0).padStart(6)} CPU µs/turn  ${(cpuUs / runs / (floor.cpuUs / floor.runs)).toFixed(2)}× the floor\n`);
}
