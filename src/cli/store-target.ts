/**
 * The one way a command opens the store `--store` names (DESIGN.md section 8: a SQLite path or a
 * `postgres://` URL everywhere; `:memory:` for `run`, ADR/0408): run, resume, fork, view, runs,
 * audit, cancel, steer and approve all come here. A `postgres://` or `postgresql://` URL is never
 * taken for a file path, and its password never appears in what a command prints: messages name
 * the store by `where` and hints repeat it as `hint`, both without credentials.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { CheckpointStore } from '../contracts/store.js';
import { describePostgresFailure } from '../checkpoint/postgres/postgres-failure.js';
import { displayPath } from '../manifest/load-manifest.js';
import { complain, type CommandIO } from './command-io.js';
import { postgresLaunchRecords, sqliteLaunchRecords, type LaunchRecord, type LaunchRecords } from './launch-records.js';
import { sqliteStoreAdvice } from './newer-node.js';
import { MEMORY_STORE, storePathFor } from './open-store.js';
import { parsePostgresUrl, shellWord } from './postgres-url.js';

export { isPostgresUrl } from './postgres-url.js';

export interface CommandStore {
  readonly store: CheckpointStore;
  /** `memory`: the run lives and ends with this process; nothing can resume or audit it later. */
  readonly kind: 'sqlite' | 'postgres' | 'memory';
  /** For messages: the file relative to the current directory, or `postgres://host:port/db schema S`. */
  readonly where: string;
  /** ` --store …` for the hints a command prints (never a password); empty for the default file. */
  readonly hint: string;
  /** How runs were launched, for `resume` and `fork` in another process. */
  readonly launches: LaunchRecords;
  close(): Promise<void>;
}

export interface StoreRequest {
  /** `--store`, as given. */
  readonly flag: string | undefined;
  /** The manifest's `store.path`, absolute (`run` only): used when there is no flag. */
  readonly manifestStore?: string;
  /** Create a missing SQLite file (and its directory); otherwise a missing file is said and gives undefined. */
  readonly create: boolean;
  /** What to do about a missing SQLite file instead of the default complaint. */
  readonly onMissing?: (where: string) => void;
  /** `run` only: `--store :memory:` keeps the run in this process's memory; every other command refuses it. */
  readonly memory?: boolean;
}

/**
 * Opens the store; undefined (said on stderr) for an invalid URL, a missing file, a SQLite store on
 * a Node.js without `node:sqlite`, or `:memory:` outside `run`. Rejects with StoreError when
 * Postgres cannot be opened.
 */
export async function openCommandStore(request: StoreRequest, io: CommandIO): Promise<CommandStore | undefined> {
  if (request.flag === MEMORY_STORE) return openMemory(request, io);
  const target = parsePostgresUrl(request.flag);
  if (target === undefined) return openSqlite(request, io);
  if ('problem' in target) {
    complain(io, target.problem);
    return undefined;
  }
  const { postgresStore } = await import('../checkpoint/postgres/postgres-store.js');
  const store = postgresStore({ connectionString: target.connectionString }, target.schema === undefined ? {} : { schema: target.schema });
  try {
    await store.ready();
  } catch (error) {
    await store.close().catch(() => undefined);
    throw error;
  }
  const records = postgresLaunchRecords(target.connectionString, store.schema);
  const where = store.where;
  const launches: LaunchRecords = {
    save: (record: LaunchRecord) => records.save(record).catch((error: unknown) => Promise.reject(describePostgresFailure(error, { where, operation: 'recording how the run was launched', runId: record.runId }))),
    load: (runId: string) => records.load(runId).catch((error: unknown) => Promise.reject(describePostgresFailure(error, { where, operation: 'reading how the run was launched', runId }))),
    close: () => records.close(),
  };
  return {
    store,
    kind: 'postgres',
    where,
    hint: ` --store ${shellWord(target.redacted)}`,
    launches,
    async close() {
      await launches.close();
      await store.close();
    },
  };
}

async function openSqlite(request: StoreRequest, io: CommandIO): Promise<CommandStore | undefined> {
  const path = storePathFor(request.flag, request.manifestStore, io.cwd);
  const where = displayPath(path, io.cwd);
  if (!request.create && !existsSync(path)) {
    if (request.onMissing !== undefined) request.onMissing(where);
    else complain(io, `no store at ${where} (pass --store PATH or a postgres:// URL)`);
    return undefined;
  }
  // Said before anything is created: the library's own message would offer memoryStore(), which a command line cannot call.
  const advice = sqliteStoreAdvice(where, io, request.memory === true);
  if (advice !== undefined) {
    complain(io, advice);
    return undefined;
  }
  mkdirSync(dirname(path), { recursive: true });
  const { sqliteStore } = await import('../checkpoint/sqlite/sqlite-store.js');
  const store = sqliteStore({ path });
  const launches = sqliteLaunchRecords(path);
  return {
    store,
    kind: 'sqlite',
    where,
    hint: path === storePathFor(undefined, undefined, io.cwd) ? '' : ` --store ${shellWord(where)}`,
    launches,
    async close() {
      await launches.close();
      store.close();
    },
  };
}

const NO_LAUNCH_RECORDS: LaunchRecords = { save: async () => undefined, load: async () => undefined, close: async () => undefined };

async function openMemory(request: StoreRequest, io: CommandIO): Promise<CommandStore | undefined> {
  if (request.memory !== true) {
    complain(io, `--store ${MEMORY_STORE} keeps a run only inside the \`dualloop run\` that started it, so no other command can read it: give the SQLite file or postgres:// URL that holds the run`);
    return undefined;
  }
  const { memoryStore } = await import('../checkpoint/memory-store.js');
  return { store: memoryStore(), kind: 'memory', where: `memory (--store ${MEMORY_STORE})`, hint: ` --store ${MEMORY_STORE}`, launches: NO_LAUNCH_RECORDS, close: async () => undefined };
}
