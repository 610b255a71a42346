import type { DatabaseSync } from 'node:sqlite';
import type { Pool } from 'pg';
import { loadNodeSqlite } from '../checkpoint/sqlite/load-node-sqlite.js';
import { quoteIdentifier } from '../checkpoint/postgres/postgres-schema.js';
import type { BoundOverrides } from '../manifest/bound-overrides.js';

/**
 * What `dualloop run` started a run with — the manifest's absolute path and the bound
 * overrides — so that `dualloop resume <runId>` in another process rebuilds the same kernel.
 * Kept in a table of the command's own (`cli_launches`) beside the store's tables: in the
 * SQLite file, or in the Postgres store's schema. The kernel's store interface stays free of
 * command-line concerns (ADR 0033).
 */
export interface LaunchRecord {
  readonly runId: string;
  readonly manifestPath: string;
  readonly overrides: BoundOverrides;
}

export interface LaunchRecords {
  save(record: LaunchRecord): Promise<void>;
  load(runId: string): Promise<LaunchRecord | undefined>;
  close(): Promise<void>;
}

function parseOverrides(text: string): BoundOverrides {
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as BoundOverrides) : {};
  } catch {
    return {};
  }
}

export function sqliteLaunchRecords(path: string): LaunchRecords {
  const database: DatabaseSync = new (loadNodeSqlite(path).DatabaseSync)(path, { timeout: 5_000 });
  database.exec(`CREATE TABLE IF NOT EXISTS cli_launches (
    run_id TEXT PRIMARY KEY,
    manifest_path TEXT NOT NULL,
    overrides TEXT NOT NULL
  ) STRICT`);
  const insert = database.prepare('INSERT OR REPLACE INTO cli_launches (run_id, manifest_path, overrides) VALUES (?, ?, ?)');
  const select = database.prepare('SELECT manifest_path, overrides FROM cli_launches WHERE run_id = ?');
  return {
    async save({ runId, manifestPath, overrides }) {
      insert.run(runId, manifestPath, JSON.stringify(overrides));
    },
    async load(runId) {
      const row = select.get(runId) as { manifest_path: string; overrides: string } | undefined;
      if (row === undefined) return undefined;
      return { runId, manifestPath: row.manifest_path, overrides: parseOverrides(row.overrides) };
    },
    async close() {
      if (database.isOpen) database.close();
    },
  };
}

/** SQLSTATEs of a `CREATE TABLE IF NOT EXISTS` that lost a race with another process's. */
const CREATED_MEANWHILE = new Set(['23505', '42P07']);

/**
 * The same records in `<schema>.cli_launches` of a Postgres store (the store created and marked
 * the schema before). One connection of its own, opened on first use.
 */
export function postgresLaunchRecords(connectionString: string, schema: string): LaunchRecords {
  const table = `${quoteIdentifier(schema)}.cli_launches`;
  let opened: Promise<Pool> | undefined;
  const pool = () =>
    (opened ??= (async () => {
      const { default: pg } = await import('pg');
      const made = new pg.Pool({ connectionString, max: 1 });
      made.on('error', () => undefined);
      try {
        await made.query(`CREATE TABLE IF NOT EXISTS ${table} (run_id text PRIMARY KEY, manifest_path text NOT NULL, overrides text NOT NULL)`);
      } catch (error) {
        const state = (error as { code?: unknown }).code;
        if (typeof state !== 'string' || !CREATED_MEANWHILE.has(state)) {
          await made.end().catch(() => undefined);
          opened = undefined;
          throw error;
        }
      }
      return made;
    })());
  return {
    async save({ runId, manifestPath, overrides }) {
      await (await pool()).query(
        `INSERT INTO ${table} (run_id, manifest_path, overrides) VALUES ($1, $2, $3) ON CONFLICT (run_id) DO UPDATE SET manifest_path = excluded.manifest_path, overrides = excluded.overrides`,
        [runId, manifestPath, JSON.stringify(overrides)],
      );
    },
    async load(runId) {
      const rows = (await (await pool()).query<{ manifest_path: string; overrides: string }>(`SELECT manifest_path, overrides FROM ${table} WHERE run_id = $1`, [runId])).rows;
      const row = rows[0];
      return row === undefined ? undefined : { runId, manifestPath: row.manifest_path, overrides: parseOverrides(row.overrides) };
    },
    async close() {
      const made = await opened?.catch(() => undefined);
      opened = undefined;
      await made?.end().catch(() => undefined);
    },
  };
}
