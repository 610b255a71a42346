/**
 * dualloop with the shared durable store (`postgresStore`), a checkpoint after every turn, in a
 * fresh schema of the server run.mjs started (or `DATABASE_URL`): `BENCH_DATABASE_URL` and
 * `BENCH_SCHEMA` in the environment.
 */
import { createDualloopSystem, loadDualloop } from './dualloop-common.mjs';

export const meta = { label: 'dualloop (postgresStore, durable)', packages: ['dualloop', 'pg'] };

export function pendingReason() {
  return process.env.BENCH_DATABASE_URL === undefined ? 'no database: run it through run.mjs (--only=postgres), which starts one' : undefined;
}

export async function createSystem(env) {
  const { postgresStore } = await loadDualloop();
  const store = postgresStore({ connectionString: process.env.BENCH_DATABASE_URL }, { schema: process.env.BENCH_SCHEMA ?? 'dualloop_bench' });
  await store.ready();
  return createDualloopSystem(env, store, 'dualloop (postgres)');
}
