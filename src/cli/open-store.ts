import { existsSync, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { sqliteStore, type SqliteStore } from '../checkpoint/sqlite-store.js';
import { displayPath } from '../manifest/load-manifest.js';
import { complain, type CommandIO } from './command-io.js';
import { openLaunchRecords, type LaunchRecords } from './launch-records.js';

/** The default store of the command, relative to the current directory. */
export const DEFAULT_STORE_PATH = '.dualloop/runs.db';

export interface OpenedStore {
  readonly store: SqliteStore;
  /** Absolute path of the database file. */
  readonly path: string;
  /** What the command needs beside the store to resume a run in another process. */
  readonly launches: LaunchRecords;
  close(): void;
}

/** Where a command's store is: `--store`, else the manifest's `store.path`, else the default. */
export function storePathFor(flag: string | undefined, manifestStore: string | undefined, cwd: string = process.cwd()): string {
  return resolve(cwd, flag ?? manifestStore ?? DEFAULT_STORE_PATH);
}

/**
 * Opens the SQLite store at `path`, creating it (and its directory) only when `create`; without
 * `create` a missing file gives `undefined`. A file that is not a dualloop store throws StoreError.
 */
export function openStore(path: string, options: { readonly create: boolean }): OpenedStore | undefined {
  if (!options.create && !existsSync(path)) return undefined;
  mkdirSync(dirname(path), { recursive: true });
  const store = sqliteStore({ path });
  const launches = openLaunchRecords(path);
  return {
    store,
    path,
    launches,
    close() {
      launches.close();
      store.close();
    },
  };
}

/** For `resume` and `audit`: the store at `--store` or the default, which must exist; says so on stderr when it does not. */
export function openExistingStore(flag: string | undefined, io: CommandIO): OpenedStore | undefined {
  const path = storePathFor(flag, undefined, io.cwd);
  const opened = openStore(path, { create: false });
  if (opened === undefined) complain(io, `no store at ${displayPath(path, io.cwd)} (pass --store PATH)`);
  return opened;
}
