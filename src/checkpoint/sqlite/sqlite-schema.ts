/**
 * The SQLite store's schema and its migrations. The schema version lives in `PRAGMA user_version`
 * and the file is marked as dualloop's with `PRAGMA application_id`, so that a database of another
 * application is never written to. Migrations run in order, each in the same IMMEDIATE
 * transaction as the version bump, so two processes opening a fresh file at once cannot both
 * migrate it. A database whose version is newer than the last migration is refused untouched.
 * To change the schema: append a migration (never edit a shipped one) and a fixture test.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import { loadNodeSqlite } from './load-node-sqlite.js';
import { isDualloopErrorOf, StoreError } from '../../errors.js';
import { describeSqliteFailure } from './sqlite-failure.js';
import { APPLICATION_ID, checkStoreFile } from './sqlite-file-check.js';

export { APPLICATION_ID };

export interface Migration {
  readonly version: number;
  readonly description: string;
  readonly sql: string;
}

/*
 * Child tables key runs by the integer `runs.id` (smaller rows and indexes than the text run id).
 * Version 1 kept every task-boundary checkpoint and overwrote the latest turn checkpoint
 * (ADR/0021); version 2 replaces that with the append-only checkpoint history (ADR/0120).
 * JSON columns hold what the kernel handed over, serialised once; the other columns exist for
 * queries that must not parse bodies (`listRuns`, `audit`). Events, mostly small rows appended in
 * key order, live in a WITHOUT ROWID table: one b-tree instead of a table and its index, one page
 * fewer to write per commit.
 */
/**
 * Events and checkpoint entries (schema 6, ADR/0380) are rowid tables whose rowid is
 * `run * RUN_RANGE + seq` (or `+ sequence`): a run's rows are one rowid range, appended at its end,
 * with no second b-tree for the (run, seq) key. Statements select a run's rows by that range.
 */
export const RUN_RANGE = 4294967296;

/** The columns of `checkpoint_entries` (schema 2; schema 6 adds the rowid key before them). */
const ENTRY_COLUMNS = `run INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        sequence INTEGER NOT NULL,
        kind TEXT NOT NULL,
        version INTEGER NOT NULL,
        saved_at INTEGER NOT NULL,
        event_seq INTEGER NOT NULL,
        task_id TEXT,
        task_index INTEGER,
        turn INTEGER,
        tasks_done INTEGER NOT NULL,
        snapshot INTEGER NOT NULL,
        body TEXT NOT NULL,`;

/** The read-only view for SQL written against schema version 1 (kept since version 2). */
const CHECKPOINTS_VIEW = `
CREATE VIEW checkpoints (run, sequence, kind, version, saved_at, event_seq, tasks_done, body) AS
        SELECT e.run, e.sequence, e.kind, e.version, e.saved_at, e.event_seq, e.tasks_done,
          CASE WHEN e.version = 1 THEN e.body ELSE json_object(
            'version', e.version, 'runId', r.run_id, 'kind', e.kind, 'sequence', e.sequence, 'savedAt', e.saved_at, 'eventSeq', e.event_seq,
            'progress', json_object(
              'modelCallIndex', json_extract(e.body, '$.change.modelCallIndex'),
              'results', json((SELECT json_group_array(json_object('taskId', c.task_id) ORDER BY c.position)
                               FROM checkpoint_results c WHERE c.run = e.run AND c.position < e.tasks_done)))) END
        FROM checkpoint_entries e JOIN runs r ON r.id = e.run;`;

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'runs, checkpoints, tool results, events, results, leases',
    sql: `
      CREATE TABLE runs (
        id INTEGER PRIMARY KEY,
        run_id TEXT NOT NULL UNIQUE,
        name TEXT,
        options_digest TEXT NOT NULL,
        tasks TEXT NOT NULL,
        tasks_total INTEGER NOT NULL,
        created_at INTEGER NOT NULL
      );
      CREATE INDEX runs_by_creation ON runs (created_at DESC, id DESC);
      CREATE TABLE checkpoints (
        run INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        slot INTEGER NOT NULL,
        sequence INTEGER NOT NULL,
        kind TEXT NOT NULL,
        version INTEGER NOT NULL,
        saved_at INTEGER NOT NULL,
        event_seq INTEGER NOT NULL,
        tasks_done INTEGER NOT NULL,
        body TEXT NOT NULL,
        PRIMARY KEY (run, slot)
      );
      CREATE TABLE tool_results (
        run INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        tool_call_id TEXT NOT NULL,
        body TEXT NOT NULL,
        PRIMARY KEY (run, tool_call_id)
      );
      CREATE TABLE events (
        run INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        type TEXT NOT NULL,
        at INTEGER NOT NULL,
        body TEXT NOT NULL,
        PRIMARY KEY (run, seq)
      ) WITHOUT ROWID;
      CREATE TABLE results (
        run INTEGER PRIMARY KEY REFERENCES runs (id) ON DELETE CASCADE,
        stop TEXT NOT NULL,
        tasks_done INTEGER NOT NULL,
        body TEXT NOT NULL
      );
      CREATE TABLE leases (
        run INTEGER PRIMARY KEY REFERENCES runs (id) ON DELETE CASCADE,
        holder TEXT NOT NULL,
        expires_at INTEGER NOT NULL
      );
    `,
  },
  {
    version: 2,
    description: 'append-only checkpoint history (checkpoint format 2); version 1 checkpoints kept as snapshots',
    // Every entry of a run's history is a row (nothing is overwritten); task results committed by
    // an entry are rows by position, written once. Version 1 rows move over unchanged, each one a
    // snapshot (a version 1 envelope holds the whole progress), so nothing is parsed here and a
    // damaged row is still reported when its run is resumed. `checkpoints` becomes a read-only view
    // with the columns of version 1 and, for version 2 entries, a summary body (sequence, event
    // seq, model call index, finished task ids), for SQL written against version 1.
    sql: `
      CREATE TABLE checkpoint_entries (
        ${ENTRY_COLUMNS}
        PRIMARY KEY (run, sequence)
      );
      CREATE INDEX checkpoint_snapshots ON checkpoint_entries (run, sequence) WHERE snapshot = 1;
      CREATE TABLE checkpoint_results (
        run INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        position INTEGER NOT NULL,
        sequence INTEGER NOT NULL,
        task_id TEXT NOT NULL,
        body TEXT NOT NULL,
        PRIMARY KEY (run, position)
      );
      INSERT INTO checkpoint_entries (run, sequence, kind, version, saved_at, event_seq, tasks_done, snapshot, body)
        SELECT run, sequence, kind, version, saved_at, event_seq, tasks_done, 1, body FROM checkpoints;
      DROP TABLE checkpoints;
      ${CHECKPOINTS_VIEW}
    `,
  },
  {
    version: 3,
    description: 'forks: the run and point a run was forked from (kernel.fork, ADR/0221)',
    // NULL for every run that is not a fork, so existing rows need no rewrite. Two columns rather
    // than one JSON: `dualloop runs` groups forks under their parent by `fork_of_run_id`.
    sql: `
      ALTER TABLE runs ADD COLUMN fork_of_run_id TEXT;
      ALTER TABLE runs ADD COLUMN fork_of_at TEXT;
    `,
  },
  {
    version: 4,
    description: 'fencing tokens on leases (ADR/0180)',
    // A lease row is kept for good once a run had one: a release clears the holder ('') and the
    // expiry, never the token, so that the token of a run only grows. Rows of earlier versions start at 0.
    sql: `ALTER TABLE leases ADD COLUMN token INTEGER NOT NULL DEFAULT 0;`,
  },
  {
    version: 5,
    description: 'control commands from other processes: cancel, steer, approve (ADR/0184)',
    sql: `
      CREATE TABLE controls (
        id INTEGER PRIMARY KEY,
        run INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        kind TEXT NOT NULL,
        call_id TEXT,
        body TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        taken_at INTEGER
      );
      CREATE INDEX controls_pending ON controls (run, id) WHERE taken_at IS NULL;
      CREATE UNIQUE INDEX controls_one_answer ON controls (run, call_id) WHERE kind = 'approve';
    `,
  },
  {
    version: 6,
    description: 'fewer pages per commit: events and checkpoint entries keyed by one rowid per run range, tool results without rowid (ADR/0380)',
    sql: `
      DROP VIEW checkpoints;
      CREATE TABLE events_v6 (
        id INTEGER PRIMARY KEY,
        run INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        type TEXT NOT NULL,
        at INTEGER NOT NULL,
        body TEXT NOT NULL,
        CHECK (id = run * ${RUN_RANGE} + seq AND seq BETWEEN 0 AND ${RUN_RANGE - 1})
      );
      INSERT INTO events_v6 (id, run, seq, type, at, body) SELECT run * ${RUN_RANGE} + seq, run, seq, type, at, body FROM events ORDER BY run, seq;
      DROP TABLE events;
      ALTER TABLE events_v6 RENAME TO events;
      CREATE TABLE checkpoint_entries_v6 (
        id INTEGER PRIMARY KEY,
        ${ENTRY_COLUMNS}
        CHECK (id = run * ${RUN_RANGE} + sequence AND sequence BETWEEN 0 AND ${RUN_RANGE - 1})
      );
      INSERT INTO checkpoint_entries_v6 (id, run, sequence, kind, version, saved_at, event_seq, task_id, task_index, turn, tasks_done, snapshot, body)
        SELECT run * ${RUN_RANGE} + sequence, run, sequence, kind, version, saved_at, event_seq, task_id, task_index, turn, tasks_done, snapshot, body
        FROM checkpoint_entries ORDER BY run, sequence;
      DROP TABLE checkpoint_entries;
      ALTER TABLE checkpoint_entries_v6 RENAME TO checkpoint_entries;
      CREATE INDEX checkpoint_snapshots ON checkpoint_entries (run, sequence) WHERE snapshot = 1;
      CREATE TABLE tool_results_v6 (
        run INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        tool_call_id TEXT NOT NULL,
        body TEXT NOT NULL,
        PRIMARY KEY (run, tool_call_id)
      ) WITHOUT ROWID;
      INSERT INTO tool_results_v6 (run, tool_call_id, body) SELECT run, tool_call_id, body FROM tool_results;
      DROP TABLE tool_results;
      ALTER TABLE tool_results_v6 RENAME TO tool_results;
      ${CHECKPOINTS_VIEW}
    `,
  },
  {
    version: 7,
    description: 'delegated runs: the run and tool call that started a run (agentTool, ADR/0455)',
    sql: `
      ALTER TABLE runs ADD COLUMN parent_run_id TEXT;
      ALTER TABLE runs ADD COLUMN parent_tool_call_id TEXT;
    `,
  },
  {
    version: 8,
    description: "a run's workflow fingerprint, compared when a resume, fork or worker takes it up (ADR/0478)",
    sql: `
      ALTER TABLE runs ADD COLUMN fingerprint TEXT;
    `,
  },
  {
    version: 9,
    description: 'runs an eval started: the recorded run and the suite (kernel.evaluate, ADR/0484)',
    sql: `
      ALTER TABLE runs ADD COLUMN eval_of_run_id TEXT;
      ALTER TABLE runs ADD COLUMN eval_of_suite TEXT;
    `,
  },
];

/** The WAL pages after which the store's own connection checkpoints (when no worker does it, ADR/0391). */
export const WAL_AUTOCHECKPOINT_PAGES = 10_000;

export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;

export interface OpenOptions {
  readonly path: string;
  /** How long a write waits for another process's lock before failing. */
  readonly busyTimeoutMs: number;
  /** `normal` survives any process crash; `full` also survives power loss, at a cost per commit. */
  readonly synchronous: 'normal' | 'full';
  readonly migrations?: readonly Migration[];
  /** `true`: also make an existing empty file a store; `false`: never create the file; default: create it when missing. */
  readonly create?: boolean;
}

/**
 * Opens (creating file and parent directories on first use) and migrates a store database. A file
 * that is not a store is refused before anything is written to it (checkStoreFile, ADR 0115).
 */
export function openDatabase({ path, busyTimeoutMs, synchronous, migrations = MIGRATIONS, create }: OpenOptions): DatabaseSync {
  const sqlite = loadNodeSqlite(path);
  checkStoreFile(path, sqlite, { create, latestVersion: migrations[migrations.length - 1]?.version ?? 0 });
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  let database: DatabaseSync | undefined;
  try {
    database = new sqlite.DatabaseSync(path, { timeout: busyTimeoutMs, enableForeignKeyConstraints: true });
    // WAL: readers never block the writer, and a commit is one append to the -wal file.
    // A checkpoint of the WAL into the file (and its fsyncs) every 10,000 pages instead of 1,000;
    // the WAL left on disk after one is cut back to 64 MiB.
    database.exec(
      `PRAGMA journal_mode = WAL; PRAGMA synchronous = ${synchronous.toUpperCase()}; PRAGMA wal_autocheckpoint = ${WAL_AUTOCHECKPOINT_PAGES}; PRAGMA journal_size_limit = 67108864;`,
    );
    migrate(database, path, migrations);
    return database;
  } catch (error) {
    database?.close();
    if (isDualloopErrorOf(error, 'store')) throw error;
    throw describeSqliteFailure(error, { path, operation: 'opening the database' });
  }
}

function migrate(database: DatabaseSync, path: string, migrations: readonly Migration[]): void {
  const latest = migrations[migrations.length - 1]?.version ?? 0;
  // A store already of this version opens on a read: in WAL mode a read never waits for a writer,
  // so a process stopped inside its commit does not keep others from opening the file and reading
  // it (their writes wait `busyTimeoutMs` for the lock, as any write does).
  if (pragmaNumber(database, 'application_id') === APPLICATION_ID && pragmaNumber(database, 'user_version') === latest) return;
  database.exec('BEGIN IMMEDIATE');
  try {
    const version = pragmaNumber(database, 'user_version');
    const applicationId = pragmaNumber(database, 'application_id');
    if (applicationId !== APPLICATION_ID) refuseForeign(database, path, applicationId);
    if (version > latest) {
      throw new StoreError({
        code: 'store_future_schema',
        path,
        message: `sqlite store ${path}: schema version ${version} was written by a newer dualloop (this one knows up to ${latest}); upgrade dualloop to open it — the file was not changed`,
      });
    }
    for (const migration of migrations) {
      if (migration.version <= version) continue;
      database.exec(migration.sql);
      database.exec(`PRAGMA user_version = ${migration.version}`);
    }
    if (applicationId !== APPLICATION_ID) database.exec(`PRAGMA application_id = ${APPLICATION_ID}`);
    database.exec('COMMIT');
  } catch (error) {
    if (database.isTransaction) database.exec('ROLLBACK');
    throw error;
  }
}

/** A database without our application id may only be adopted when it is empty (a new file). */
function refuseForeign(database: DatabaseSync, path: string, applicationId: number): void {
  const tables = database.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name").all() as { name: string }[];
  if (applicationId === 0 && tables.length === 0) return;
  const names = tables.slice(0, 5).map((table) => table.name).join(', ');
  throw new StoreError({
    code: 'store_not_dualloop',
    path,
    message: `sqlite store ${path}: not a dualloop database (application id ${applicationId}, tables: ${names || 'none'}); refusing to write to it`,
  });
}

function pragmaNumber(database: DatabaseSync, name: string): number {
  const row = database.prepare(`PRAGMA ${name}`).get() as Record<string, unknown> | undefined;
  return Number(row?.[name] ?? 0);
}
