/**
 * dualloop with the durable store (`sqliteStore`, node:sqlite), a checkpoint after every turn,
 * in a fresh database file under the OS temp directory.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDualloopSystem, distFile, loadDualloop } from './dualloop-common.mjs';

export const meta = { label: 'dualloop (sqliteStore, durable)', packages: ['dualloop'] };

/** The store is being written alongside the bench: the system is pending until the build has it. */
export function pendingReason() {
  return existsSync(distFile('checkpoint/sqlite/sqlite-store.js')) ? undefined : 'src/checkpoint/sqlite/sqlite-store.ts not built yet';
}

export async function createSystem(env) {
  const dualloop = await loadDualloop();
  const sqliteStore = dualloop.sqliteStore ?? (await import(distFile('checkpoint/sqlite/sqlite-store.js').href)).sqliteStore;
  const directory = mkdtempSync(join(tmpdir(), 'dualloop-bench-'));
  process.on('exit', () => rmSync(directory, { recursive: true, force: true }));
  return createDualloopSystem(env, sqliteStore({ path: join(directory, 'bench.db') }), 'dualloop (sqlite)');
}
