import type { DatabaseSync } from 'node:sqlite';
import { loadNodeSqlite } from '../checkpoint/load-node-sqlite.js';
import type { BoundOverrides } from '../manifest/bound-overrides.js';

/**
 * What `dualloop run` started a run with — the manifest's absolute path and the bound
 * overrides — so that `dualloop resume <runId>` in another process rebuilds the same kernel.
 * Kept in a table of the command's own (`cli_launches`) in the store's SQLite file: one file
 * per store, and the kernel's store interface stays free of command-line concerns (ADR 0033).
 */
export interface LaunchRecord {
  readonly runId: string;
  readonly manifestPath: string;
  readonly overrides: BoundOverrides;
}

export interface LaunchRecords {
  save(record: LaunchRecord): void;
  load(runId: string): LaunchRecord | undefined;
  close(): void;
}

export function openLaunchRecords(path: string): LaunchRecords {
  const database: DatabaseSync = new (loadNodeSqlite(path).DatabaseSync)(path, { timeout: 5_000 });
  database.exec(`CREATE TABLE IF NOT EXISTS cli_launches (
    run_id TEXT PRIMARY KEY,
    manifest_path TEXT NOT NULL,
    overrides TEXT NOT NULL
  ) STRICT`);
  const insert = database.prepare('INSERT OR REPLACE INTO cli_launches (run_id, manifest_path, overrides) VALUES (?, ?, ?)');
  const select = database.prepare('SELECT manifest_path, overrides FROM cli_launches WHERE run_id = ?');
  return {
    save({ runId, manifestPath, overrides }) {
      insert.run(runId, manifestPath, JSON.stringify(overrides));
    },
    load(runId) {
      const row = select.get(runId) as { manifest_path: string; overrides: string } | undefined;
      if (row === undefined) return undefined;
      return { runId, manifestPath: row.manifest_path, overrides: JSON.parse(row.overrides) as BoundOverrides };
    },
    close() {
      if (database.isOpen) database.close();
    },
  };
}
