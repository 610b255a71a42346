import { closeSync, existsSync, lstatSync, openSync, readSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import type * as NodeSqlite from 'node:sqlite';
import { isDualloopErrorOf, StoreError } from '../../errors.js';
import { walDamage } from './sqlite-wal-check.js';

/** 'dulp' as a big-endian 32-bit integer. */
export const APPLICATION_ID = 0x64756c70;
const SQLITE_MAGIC = Buffer.from('SQLite format 3\0', 'latin1');

/**
 * Decides, before anything can write to it, whether `path` may be opened as a store (ADR 0115).
 * Nothing here changes the file: it is looked at with `lstat`, its first bytes are read, and a
 * database that already exists is opened read-only to read its identity. Refused with a
 * StoreError: a special file, a zero-byte file (unless `create: true`), a file that is not SQLite,
 * a database of another application, one of a newer schema, a damaged write-ahead log; and, with
 * `create: false`, a missing file.
 */
export function checkStoreFile(path: string, sqlite: typeof NodeSqlite, options: { readonly create: boolean | undefined; readonly latestVersion: number }): void {
  if (path === ':memory:') return;
  let size: number;
  try {
    const stats = lstatSync(path);
    if (!stats.isFile()) refuse('store_not_dualloop', path, `is not a regular file (${stats.isDirectory() ? 'a directory' : 'a device, FIFO, socket or symbolic link'})`);
    size = stats.size;
  } catch (error) {
    if (isDualloopErrorOf(error, 'store')) throw error;
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    if (options.create === false) refuse('store_failed', path, 'does not exist, and create: false was given');
    return;
  }
  if (size === 0) {
    if (options.create === true) return;
    refuse('store_not_dualloop', path, 'is an empty file, not a dualloop store; pass create: true (CLI: delete the file) to make it one');
  }
  if (!startsWithSqliteMagic(path)) refuse('store_corrupt', path, 'is not a SQLite database (truncated or corrupt, or another kind of file)');
  const damage = walDamage(`${path}-wal`);
  if (damage !== undefined) refuse('store_corrupt', path, `its write-ahead log ${path}-wal is damaged: ${damage}; SQLite would drop the transactions after the damage, so the store is not opened (restore the file from a backup, or move the -wal file away to accept the loss)`);
  const identity = readIdentity(sqlite, path);
  if (identity === undefined) return;
  if (identity.applicationId !== APPLICATION_ID && !(identity.applicationId === 0 && identity.tables.length === 0)) {
    const names = identity.tables.slice(0, 5).join(', ');
    refuse('store_not_dualloop', path, `is not a dualloop database (application id ${identity.applicationId}, tables: ${names || 'none'}); refusing to write to it`);
  }
  if (identity.version > options.latestVersion) {
    refuse(
      'store_future_schema',
      path,
      `has schema version ${identity.version}, written by a newer dualloop (this one knows up to ${options.latestVersion}); upgrade dualloop to open it`,
    );
  }
}

function refuse(code: 'store_corrupt' | 'store_not_dualloop' | 'store_future_schema' | 'store_failed', path: string, problem: string): never {
  throw new StoreError({ code, path, message: `sqlite store ${path}: ${problem} — the file was not changed` });
}

function startsWithSqliteMagic(path: string): boolean {
  const descriptor = openSync(path, 'r');
  try {
    const header = Buffer.alloc(SQLITE_MAGIC.length);
    const read = readSync(descriptor, header, 0, header.length, 0);
    return read === header.length && header.equals(SQLITE_MAGIC);
  } finally {
    closeSync(descriptor);
  }
}

/**
 * Where to read the identity from. Even a read-only connection to a database in WAL mode creates
 * its `-shm` and `-wal` files (and leaves them behind), so a refused file's directory would change.
 * Without a `-wal` file everything is in the main file: it is opened `immutable`, which takes no
 * lock and creates nothing. With one (a live store, a crash image), it is opened as usual, so the
 * log's transactions are read too.
 */
function identityLocation(path: string): string | URL {
  if (existsSync(`${path}-wal`)) return path;
  const location = pathToFileURL(path);
  location.searchParams.set('immutable', '1');
  return location;
}

/** The database's identity, read through a read-only connection; undefined when SQLite cannot tell (left to the normal open to report). */
function readIdentity(sqlite: typeof NodeSqlite, path: string): { applicationId: number; version: number; tables: string[] } | undefined {
  let database: NodeSqlite.DatabaseSync | undefined;
  try {
    database = new sqlite.DatabaseSync(identityLocation(path), { readOnly: true });
    const number = (name: string) => Number((database!.prepare(`PRAGMA ${name}`).get() as Record<string, unknown> | undefined)?.[name] ?? 0);
    const tables = (database.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name").all() as { name: string }[]).map((row) => row.name);
    return { applicationId: number('application_id'), version: number('user_version'), tables };
  } catch {
    return undefined;
  } finally {
    database?.close();
  }
}
