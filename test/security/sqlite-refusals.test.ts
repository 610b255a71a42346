import { copyFileSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { describe, expect, it } from 'vitest';
import { createKernel, sqliteStore, StoreError } from 'dualloop';
import { scriptedModel } from 'dualloop/testing';
import { SCHEMA_VERSION } from '../../src/checkpoint/sqlite/sqlite-schema.js';
import { runRecord } from '../store/builders.js';
import { useTempDir } from '../store/temp-dir.js';

// Issue 15 item 11: a store refuses a file that is not its own without changing it, and reports damage.

const directory = useTempDir();

function refusal(open: () => unknown): StoreError {
  try {
    open();
  } catch (error) {
    if (error instanceof StoreError) return error;
    throw error;
  }
  throw new Error('the store opened');
}

/** A database in the rollback-journal mode SQLite uses by default (a WAL switch would change its header). */
function rollbackDatabase(path: string, sql: string): void {
  const database = new DatabaseSync(path);
  database.exec(`PRAGMA journal_mode = DELETE; ${sql}`);
  database.close();
}

describe('files that are not this store are left byte-identical', () => {
  it('a database of another application', () => {
    const path = join(directory(), 'app.db');
    rollbackDatabase(path, "CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO users (name) VALUES ('ada');");
    const before = readFileSync(path);
    const error = refusal(() => sqliteStore({ path }));
    expect(readFileSync(path).equals(before)).toBe(true);
    expect(existsSync(`${path}-wal`)).toBe(false);
    expect(error).toMatchObject({ code: 'store_not_dualloop', message: expect.stringContaining('not changed') });
  });

  it('a store of a newer schema, in rollback-journal mode', () => {
    const path = join(directory(), 'future.db');
    sqliteStore({ path }).close();
    rollbackDatabase(path, `PRAGMA user_version = ${SCHEMA_VERSION + 1};`);
    const before = readFileSync(path);
    const error = refusal(() => sqliteStore({ path }));
    expect(readFileSync(path).equals(before)).toBe(true);
    expect(existsSync(`${path}-wal`)).toBe(false);
    expect(error).toMatchObject({ code: 'store_future_schema' });
  });

  it.each([
    ['a store of a newer schema', `PRAGMA user_version = ${SCHEMA_VERSION + 1};`, 'store_future_schema'],
    ['a database of another application', 'PRAGMA application_id = 42; CREATE TABLE users (id INTEGER PRIMARY KEY);', 'store_not_dualloop'],
  ])('%s in WAL mode: the file and its directory are left as they were (no -shm, no -wal)', (_name, sql, code) => {
    const dir = directory();
    const path = join(dir, 'wal.db');
    const database = new DatabaseSync(path);
    database.exec(`PRAGMA journal_mode = WAL; ${sql}`);
    database.close();
    const listing = readdirSync(dir);
    expect(listing).toEqual(['wal.db']);
    const before = readFileSync(path);
    expect(refusal(() => sqliteStore({ path }))).toMatchObject({ code });
    expect(readdirSync(dir)).toEqual(listing);
    expect(readFileSync(path).equals(before)).toBe(true);
  });

  it('a zero-byte file, unless create: true asks for a store', () => {
    const path = join(directory(), 'empty.db');
    writeFileSync(path, '');
    expect(refusal(() => sqliteStore({ path }))).toMatchObject({ code: 'store_not_dualloop', message: expect.stringContaining('empty file') });
    expect(statSync(path).size).toBe(0);
    const store = sqliteStore({ path, create: true });
    expect(store.listRuns()).toEqual([]);
    store.close();
  });

  it('a missing file with create: false', () => {
    const path = join(directory(), 'missing.db');
    expect(refusal(() => sqliteStore({ path, create: false }))).toMatchObject({ code: 'store_failed', message: expect.stringContaining('does not exist') });
    expect(existsSync(path)).toBe(false);
  });

  it('a directory', () => {
    expect(refusal(() => sqliteStore({ path: directory() }))).toMatchObject({ code: 'store_not_dualloop', message: expect.stringContaining('not a regular file') });
  });
});

describe('damage is reported, never absorbed', () => {
  it('a run whose checkpoints are gone is not resumed from its first task', async () => {
    const path = join(directory(), 'runs.db');
    const store = sqliteStore({ path });
    const model = scriptedModel([{ text: 'one' }, { text: 'two' }]);
    const run = createKernel({ model, store }).start(['first', 'second']);
    await run.result;
    // Lose the checkpoints (and the result, as after a crash); the event log still says they were saved.
    const other = new DatabaseSync(path);
    other.exec('DELETE FROM results; DELETE FROM checkpoint_results; DELETE FROM checkpoint_entries; DELETE FROM leases;');
    other.close();
    const again = scriptedModel([{ text: 'one again' }, { text: 'two again' }]);
    await expect(createKernel({ model: again, store }).resume(run.runId)).rejects.toMatchObject({
      name: 'RunError',
      code: 'checkpoint_corrupt',
      message: expect.stringContaining('not restarted from its first task'),
    });
    expect(again.calls).toHaveLength(0);
    store.close();
  });

  it('a damaged write-ahead log is reported, not silently dropped', () => {
    const live = join(directory(), 'live.db');
    const store = sqliteStore({ path: live });
    for (let index = 0; index < 20; index++) store.createRun(runRecord(`run-${index}`));
    // A crash image: the file and its WAL as they are while the store is open.
    const image = join(directory(), 'image.db');
    copyFileSync(live, image);
    copyFileSync(`${live}-wal`, `${image}-wal`);
    store.close();
    const sound = join(directory(), 'sound.db');
    copyFileSync(image, sound);
    copyFileSync(`${image}-wal`, `${sound}-wal`);
    const reopened = sqliteStore({ path: sound });
    expect(reopened.listRuns().length).toBe(20);
    reopened.close();

    // Flip one byte inside the page of the WAL's first frame: every later transaction would vanish.
    const wal = readFileSync(`${image}-wal`);
    wal[32 + 24 + 100] = wal[32 + 24 + 100]! ^ 0xff;
    writeFileSync(`${image}-wal`, wal);
    const walBefore = readFileSync(`${image}-wal`);
    expect(refusal(() => sqliteStore({ path: image }))).toMatchObject({ code: 'store_corrupt', message: expect.stringMatching(/write-ahead log .* is damaged: frame 1 of \d+ fails its checksum/) });
    expect(readFileSync(`${image}-wal`).equals(walBefore)).toBe(true);
  });
});
