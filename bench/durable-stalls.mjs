/**
 * How long a durable run can be held up by the store: dualloop runs one after another on a
 * sqliteStore (the bench workload, a checkpoint after every turn), each run's wall time recorded,
 * so that the pauses a WAL checkpoint puts into the event loop show in the tail (ADR/0391). Prints
 * wall and CPU per turn (process CPU includes the checkpoint worker; the main thread's is beside
 * it), the percentiles of a run's wall time, and the WAL file's size at the end.
 *
 *   node bench/durable-stalls.mjs [runs=3000] [checkout=this one]
 *
 * Give another checkout (with dist/ built) to compare builds; run each a few times, alternating.
 */
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { immediatePacer, TURNS } from './lib/workload.mjs';

const runs = Number(process.argv[2] ?? 3000);
const root = resolve(process.argv[3] ?? fileURLToPath(new URL('..', import.meta.url)));
process.env.DUALLOOP_ROOT = root;
const { sqliteStore } = await import(pathToFileURL(join(root, 'dist/src/index.js')).href);
const { createDualloopSystem } = await import('./systems/dualloop-common.mjs');

const directory = mkdtempSync(join(tmpdir(), 'dualloop-stalls-'));
const path = join(directory, 'bench.db');
const store = sqliteStore({ path });
const system = await createDualloopSystem({ pacer: immediatePacer, turns: TURNS }, store, 'dualloop (sqlite)');
for (let index = 0; index < 200; index += 1) await system.runOnce();

const walls = [];
const cpuBefore = process.cpuUsage();
const mainBefore = process.threadCpuUsage();
const started = performance.now();
for (let index = 0; index < runs; index += 1) {
  const runStarted = performance.now();
  await system.runOnce();
  walls.push(performance.now() - runStarted);
}
const wallMs = performance.now() - started;
const cpu = process.cpuUsage(cpuBefore);
const main = process.threadCpuUsage(mainBefore);
const walMiB = existsSync(`${path}-wal`) ? statSync(`${path}-wal`).size / 2 ** 20 : 0;
store.close();
rmSync(directory, { recursive: true, force: true });

walls.sort((left, right) => left - right);
const at = (fraction) => walls[Math.min(walls.length - 1, Math.floor(fraction * walls.length))].toFixed(1);
const perTurn = (us) => (us / (runs * TURNS)).toFixed(0);
console.log(`${root}: ${runs} runs × ${TURNS} turns on sqliteStore`);
console.log(`  per turn: wall ${perTurn(wallMs * 1000)} µs, CPU ${perTurn(cpu.user + cpu.system)} µs (main thread ${perTurn(main.user + main.system)} µs)`);
console.log(`  a run's wall time: p50 ${at(0.5)} ms, p99 ${at(0.99)} ms, p99.9 ${at(0.999)} ms, max ${walls.at(-1).toFixed(1)} ms`);
console.log(`  WAL file at the end: ${walMiB.toFixed(1)} MiB`);
