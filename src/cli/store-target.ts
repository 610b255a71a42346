import { existsSync } from 'node:fs';
import type { CheckpointStore } from '../contracts/store.js';
import { displayPath } from '../manifest/load-manifest.js';
import { complain, type CommandIO } from './command-io.js';
import { storePathFor } from './open-store.js';

/** `--store postgres://…` (or `postgresql://`): a Postgres store; anything else is a SQLite file. */
export function isPostgresUrl(flag: string | undefined): flag is string {
  return flag !== undefined && /^postgres(ql)?:\/\//i.test(flag);
}

/**
 * A store named by `--store` for commands that only use the store's methods (cancel, steer,
 * approve, runs, audit): a `postgres://` URL (schema from its `schema` query parameter, default
 * `dualloop`), or an existing SQLite file (the default `.dualloop/runs.db`). Undefined, said on
 * stderr, when the file does not exist.
 */
export async function openStoreTarget(flag: string | undefined, io: CommandIO): Promise<{ readonly store: CheckpointStore; readonly where: string; close(): Promise<void> } | undefined> {
  if (isPostgresUrl(flag)) {
    const url = new URL(flag);
    const schema = url.searchParams.get('schema') ?? undefined;
    url.searchParams.delete('schema');
    // The workers' queue schema (`dualloop submit|worker`) is not the store's business.
    url.searchParams.delete('queueSchema');
    const { postgresStore } = await import('../checkpoint/postgres-store.js');
    const store = postgresStore({ connectionString: url.toString() }, schema === undefined ? {} : { schema });
    await store.ready();
    return { store, where: store.where, close: () => store.close() };
  }
  const path = storePathFor(flag, undefined, io.cwd);
  if (!existsSync(path)) {
    complain(io, `no store at ${displayPath(path, io.cwd)} (pass --store PATH or a postgres:// URL)`);
    return undefined;
  }
  const { sqliteStore } = await import('../checkpoint/sqlite-store.js');
  const store = sqliteStore({ path });
  return { store, where: displayPath(path, io.cwd), close: async () => store.close() };
}
