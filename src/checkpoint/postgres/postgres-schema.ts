/**
 * The Postgres store's schema and its migrations, in one schema of the database (`dualloop` by
 * default). The version lives in the row of `<schema>.dualloop_schema`, which also marks the
 * schema as dualloop's, so that a schema of another application is never written to. Migrations
 * run in one transaction under a transaction-scoped advisory lock, so two processes opening a
 * fresh database at once cannot both migrate it. A schema whose version is newer than the last
 * migration is refused untouched (nothing is written before the check). To change the schema:
 * append a migration, never edit a shipped one.
 */
import type { PoolClient } from 'pg';
import { StoreError } from '../../errors.js';

export interface PostgresMigration {
  readonly version: number;
  readonly description: string;
  /** SQL with `{schema}` standing for the quoted schema name. */
  readonly sql: string;
}

/*
 * Version 1 stores checkpoint format 2 (ADR/0120) from the start: the same tables as SQLite
 * schema 2 (ADR/0121), keyed by the integer `runs.id`. JSON columns are `text`: what the kernel
 * handed over, serialised once, kept byte for byte and never parsed by the server. Times are
 * milliseconds since the epoch (`bigint`), as in every other store. The lease row of a run keeps
 * its fencing token for good (ADR/0180): a release clears the holder, never the token.
 */
export const POSTGRES_MIGRATIONS: readonly PostgresMigration[] = [
  {
    version: 1,
    description: 'runs, checkpoint history, tool results, events, results, leases with fencing tokens, control commands',
    sql: `
      CREATE TABLE {schema}.runs (
        id bigserial PRIMARY KEY,
        run_id text NOT NULL UNIQUE,
        name text,
        options_digest text NOT NULL,
        tasks text NOT NULL,
        tasks_total integer NOT NULL,
        created_at bigint NOT NULL,
        fork_of_run_id text,
        fork_of_at text
      );
      CREATE INDEX runs_by_creation ON {schema}.runs (created_at DESC, id DESC);
      CREATE TABLE {schema}.checkpoint_entries (
        run bigint NOT NULL REFERENCES {schema}.runs (id) ON DELETE CASCADE,
        sequence integer NOT NULL,
        kind text NOT NULL,
        version integer NOT NULL,
        saved_at bigint NOT NULL,
        event_seq integer NOT NULL,
        task_id text,
        task_index integer,
        turn integer,
        tasks_done integer NOT NULL,
        snapshot boolean NOT NULL,
        body text NOT NULL,
        PRIMARY KEY (run, sequence)
      );
      CREATE INDEX checkpoint_snapshots ON {schema}.checkpoint_entries (run, sequence) WHERE snapshot;
      CREATE TABLE {schema}.checkpoint_results (
        run bigint NOT NULL REFERENCES {schema}.runs (id) ON DELETE CASCADE,
        position integer NOT NULL,
        sequence integer NOT NULL,
        task_id text NOT NULL,
        body text NOT NULL,
        PRIMARY KEY (run, position)
      );
      CREATE TABLE {schema}.tool_results (
        run bigint NOT NULL REFERENCES {schema}.runs (id) ON DELETE CASCADE,
        tool_call_id text NOT NULL,
        body text NOT NULL,
        PRIMARY KEY (run, tool_call_id)
      );
      CREATE TABLE {schema}.events (
        run bigint NOT NULL REFERENCES {schema}.runs (id) ON DELETE CASCADE,
        seq integer NOT NULL,
        type text NOT NULL,
        at bigint NOT NULL,
        body text NOT NULL,
        PRIMARY KEY (run, seq)
      );
      CREATE TABLE {schema}.results (
        run bigint PRIMARY KEY REFERENCES {schema}.runs (id) ON DELETE CASCADE,
        stop text NOT NULL,
        tasks_done integer NOT NULL,
        body text NOT NULL
      );
      CREATE TABLE {schema}.leases (
        run bigint PRIMARY KEY REFERENCES {schema}.runs (id) ON DELETE CASCADE,
        holder text,
        token bigint NOT NULL,
        expires_at bigint NOT NULL
      );
      CREATE TABLE {schema}.controls (
        id bigserial PRIMARY KEY,
        run bigint NOT NULL REFERENCES {schema}.runs (id) ON DELETE CASCADE,
        kind text NOT NULL,
        call_id text,
        body text NOT NULL,
        created_at bigint NOT NULL,
        taken_at bigint
      );
      CREATE INDEX controls_pending ON {schema}.controls (run, id) WHERE taken_at IS NULL;
      CREATE UNIQUE INDEX controls_one_answer ON {schema}.controls (run, call_id) WHERE kind = 'approve';
    `,
  },
  /*
   * Version 2 (ADR/0186): the readers following a run's events (viewers). A write notifies
   * `dualloop_events_<schema>` only while the run has a follower whose row has not expired, so
   * runs nobody watches never pay for NOTIFY (which serialises the commits that use it).
   */
  {
    version: 2,
    description: 'followers of runs, so that event writes notify only when someone follows',
    sql: `
      CREATE TABLE {schema}.followers (
        id text PRIMARY KEY,
        run bigint NOT NULL REFERENCES {schema}.runs (id) ON DELETE CASCADE,
        expires_at bigint NOT NULL
      );
      CREATE INDEX followers_by_run ON {schema}.followers (run);
    `,
  },
  {
    // Version 3: runs submitted to workers (ADR/0204): what queueing a slice of the run needs, kept as long
    // as the run, apart from pg-boss's jobs (which pg-boss deletes after its retention). Keyed by
    // run id, not `runs.id`: a run is submitted before its first slice creates it.
    version: 3,
    description: 'submissions: workflow, tasks and priority of each run submitted to workers',
    sql: `
      CREATE TABLE {schema}.submissions (
        run_id text PRIMARY KEY,
        workflow text NOT NULL,
        tasks text NOT NULL,
        priority integer,
        submitted_at bigint NOT NULL
      );
    `,
  },
  {
    // Version 4: delegated runs (agentTool, ADR/0455): the run and tool call that started a run.
    version: 4,
    description: 'delegated runs: the run and tool call that started a run',
    sql: `
      ALTER TABLE {schema}.runs ADD COLUMN parent_run_id text;
      ALTER TABLE {schema}.runs ADD COLUMN parent_tool_call_id text;
    `,
  },
  {
    // Version 5: a run's workflow fingerprint (ADR/0478), compared when a resume, fork or worker takes it up.
    version: 5,
    description: "a run's workflow fingerprint",
    sql: `
      ALTER TABLE {schema}.runs ADD COLUMN fingerprint text;
    `,
  },
  {
    // Version 6: rate-limit windows shared by a fleet (rateLimit.shared, docs/operations.md).
    version: 6,
    description: 'rate-limit windows shared by every process',
    sql: `
      CREATE TABLE {schema}.rate_keys (
        key text PRIMARY KEY,
        paused_until bigint NOT NULL DEFAULT 0
      );
      CREATE TABLE {schema}.rate_starts (
        id bigserial PRIMARY KEY,
        key text NOT NULL REFERENCES {schema}.rate_keys (key),
        at bigint NOT NULL,
        tokens bigint NOT NULL
      );
      CREATE INDEX rate_starts_key_at ON {schema}.rate_starts (key, at);
    `,
  },
  {
    // Version 7: runs an eval started (kernel.evaluate, ADR/0484): the recorded run and the suite.
    version: 7,
    description: 'runs an eval started: the recorded run and the suite',
    sql: `
      ALTER TABLE {schema}.runs ADD COLUMN eval_of_run_id text;
      ALTER TABLE {schema}.runs ADD COLUMN eval_of_suite text;
    `,
  },
];

export const POSTGRES_SCHEMA_VERSION = POSTGRES_MIGRATIONS[POSTGRES_MIGRATIONS.length - 1]!.version;
const APPLICATION = 'dualloop';

export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/**
 * Brings the schema to the latest version: one query when it already is; otherwise, under the
 * advisory lock, refuses a foreign or newer schema and runs the missing migrations.
 */
export async function migratePostgres(client: PoolClient, schema: string, where: string, migrations = POSTGRES_MIGRATIONS): Promise<void> {
  const latest = migrations[migrations.length - 1]?.version ?? 0;
  const quoted = quoteIdentifier(schema);
  const current = await readVersion(client, schema);
  if (current !== undefined && current.version === latest && current.application === APPLICATION) return;
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`dualloop schema ${schema}`]);
    const found = await readVersion(client, schema);
    if (found === undefined) await refuseForeign(client, schema, where);
    else if (found.application !== APPLICATION) {
      throw new StoreError({ code: 'store_not_dualloop', path: where, message: `postgres store ${where}: schema "${schema}" belongs to ${found.application}; refusing to write to it` });
    }
    const version = found?.version ?? 0;
    if (version > latest) {
      throw new StoreError({
        code: 'store_future_schema',
        path: where,
        message: `postgres store ${where}: schema version ${version} was written by a newer dualloop (this one knows up to ${latest}); upgrade dualloop to open it — the database was not changed`,
      });
    }
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoted}`);
    await client.query(`CREATE TABLE IF NOT EXISTS ${quoted}.dualloop_schema (
      only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row), application text NOT NULL, version integer NOT NULL)`);
    for (const migration of migrations) {
      if (migration.version <= version) continue;
      await client.query(migration.sql.replaceAll('{schema}', quoted));
    }
    await client.query(
      `INSERT INTO ${quoted}.dualloop_schema (application, version) VALUES ($1, $2) ON CONFLICT (only_row) DO UPDATE SET version = excluded.version`,
      [APPLICATION, latest],
    );
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

async function readVersion(client: PoolClient, schema: string): Promise<{ application: string; version: number } | undefined> {
  // pg_tables through a fresh statement snapshot (a cached catalog lookup could miss a schema
  // another process created while this one waited for the lock).
  const table = await client.query("SELECT 1 FROM pg_catalog.pg_tables WHERE schemaname = $1 AND tablename = 'dualloop_schema'", [schema]);
  if (table.rows.length === 0) return undefined;
  const row = await client.query<{ application: string; version: number }>(`SELECT application, version FROM ${quoteIdentifier(schema)}.dualloop_schema`);
  return row.rows[0] === undefined ? undefined : { application: row.rows[0].application, version: Number(row.rows[0].version) };
}

/** A schema without our marker may only be adopted when it holds no table (a new or empty schema). */
async function refuseForeign(client: PoolClient, schema: string, where: string): Promise<void> {
  const tables = await client.query<{ name: string }>("SELECT tablename AS name FROM pg_tables WHERE schemaname = $1 ORDER BY tablename LIMIT 5", [schema]);
  if (tables.rows.length === 0) return;
  throw new StoreError({
    code: 'store_not_dualloop',
    path: where,
    message: `postgres store ${where}: schema "${schema}" is not a dualloop store (tables: ${tables.rows.map((row) => row.name).join(', ')}); refusing to write to it`,
  });
}
