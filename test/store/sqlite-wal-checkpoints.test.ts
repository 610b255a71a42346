import { copyFileSync, existsSync, openSync, readSync, closeSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { DatabaseSync } from 'node:sqlite';
import { describe, expect, it } from 'vitest';
import { sqliteStore } from 'dualloop';
import { WAL_AUTOCHECKPOINT_PAGES } from '../../src/checkpoint/sqlite/sqlite-schema.js';
import { COMMITS_PER_CHECKPOINT } from '../../src/checkpoint/sqlite/sqlite-wal-checkpointer.js';
import { event, runRecord, turnEntry } from './builders.js';
import { useTempDir } from './temp-dir.js';

const directory = useTempDir();

/**
 * The WAL header's checkpoint sequence number (https://www.sqlite.org/fileformat.html, "WAL File
 * Format"): SQLite adds one each time a writer starts the WAL over after it was fully checkpointed.
 */
function walGeneration(path: string): number {
  if (!existsSync(`${path}-wal`)) return 0;
  const header = Buffer.alloc(16);
  const descriptor = openSync(`${path}-wal`, 'r');
  try {
    return readSync(descriptor, header, 0, 16, 0) === 16 ? header.readUInt32BE(12) : 0;
  } finally {
    closeSync(descriptor);
  }
}

/** Pages in the WAL: what the next checkpoint would copy (0 when there is no WAL). */
function walPages(path: string): number {
  return existsSync(`${path}-wal`) ? Math.floor((statSync(`${path}-wal`).size - 32) / (4096 + 24)) : 0;
}

describe('sqliteStore WAL checkpoints (ADR/0391)', () => {
  it('checkpoints the WAL beside the store, starts it over while the store commits, and leaves everything in the file on close', async () => {
    const path = join(directory(), 'busy.db');
    const store = sqliteStore({ path });
    store.createRun(runRecord('run-a'));
    // Each turn is one commit of a few pages: in all far fewer than the store's own
    // autocheckpoint waits for, so only the checkpoint requested after COMMITS_PER_CHECKPOINT
    // commits copies them into the file and lets the WAL start over.
    const turns = COMMITS_PER_CHECKPOINT;
    const turn = (seq: number) => {
      store.appendEvent(event('run-a', seq));
      store.saveCheckpoint(turnEntry('run-a', seq));
    };
    for (let seq = 1; seq <= turns; seq += 1) turn(seq);
    // The worker copies them into the file beside this thread; the store's first commit after it
    // is done copies what was committed meanwhile, and the next starts the WAL over.
    let all = turns;
    const deadline = Date.now() + 30_000;
    while (walGeneration(path) === 0 && Date.now() < deadline && all < turns + 300) {
      await sleep(10);
      all += 1;
      turn(all);
    }
    expect(walGeneration(path)).toBeGreaterThan(0);
    expect(walPages(path)).toBeLessThan(WAL_AUTOCHECKPOINT_PAGES);

    expect(store.readEvents('run-a')).toHaveLength(all);
    expect(store.loadCheckpoint('run-a')?.entries).toHaveLength(all);
    store.close();

    // The store's connection closed last: the WAL was folded into the file and removed, so the
    // file alone holds every row.
    expect(existsSync(`${path}-wal`)).toBe(false);
    const copy = join(directory(), 'copy.db');
    copyFileSync(path, copy);
    const database = new DatabaseSync(copy, { readOnly: true });
    try {
      expect(database.prepare('SELECT count(*) AS n FROM checkpoint_entries').get()).toEqual({ n: all });
      expect(database.prepare('SELECT count(*) AS n FROM events').get()).toEqual({ n: all });
    } finally {
      database.close();
    }
  });

  it('keeps a store that commits less than one checkpoint interval on its own connection', () => {
    const path = join(directory(), 'quiet.db');
    const store = sqliteStore({ path });
    store.createRun(runRecord('run-a'));
    for (let seq = 1; seq < COMMITS_PER_CHECKPOINT / 2; seq += 1) store.saveCheckpoint(turnEntry('run-a', seq));
    store.close();
    expect(existsSync(`${path}-wal`)).toBe(false);
    const reopened = sqliteStore({ path });
    expect(reopened.loadCheckpoint('run-a')?.entries).toHaveLength(COMMITS_PER_CHECKPOINT / 2 - 1);
    reopened.close();
  });
});
