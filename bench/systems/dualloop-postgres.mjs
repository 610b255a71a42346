/**
 * dualloop with the shared durable store (`postgresStore`, its defaults: a pool of 10), a
 * checkpoint after every turn, in a fresh schema of the server run.mjs started (or
 * `DATABASE_URL`): `BENCH_DATABASE_URL` and `BENCH_SCHEMA` in the child's environment.
 */
import { createDualloopSystem, loadDualloop } from './dualloop-common.mjs';

export const meta = { label: 'dualloop (postgresStore, durable)', packages: ['dualloop', 'pg'] };

export async function createSystem(env) {
  if (process.env.BENCH_DATABASE_URL === undefined) throw new Error('no database: run it through run.mjs, which starts one');
  const { postgresStore } = await loadDualloop();
  const store = postgresStore({ connectionString: process.env.BENCH_DATABASE_URL }, { schema: process.env.BENCH_SCHEMA ?? 'dualloop_bench' });
  await store.ready();
  return createDualloopSystem(env, store, 'dualloop (postgres)');
}
