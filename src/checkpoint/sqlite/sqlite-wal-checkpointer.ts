import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { Worker } from 'node:worker_threads';
import { WAL_AUTOCHECKPOINT_PAGES } from './sqlite-schema.js';

/**
 * SQLite's WAL checkpoints, off the event loop (ADR/0391). A checkpoint copies the pages the WAL
 * holds back into the database file and fsyncs it; run by the committing connection
 * (`wal_autocheckpoint`) it blocked every run of the process for 110–170 ms every ~1,500
 * checkpointed turns. Here, every `COMMITS_PER_CHECKPOINT` commits, a worker thread with its own
 * connection to the same file runs passive checkpoints, which take no lock that the store's
 * writes or reads wait for: the first copies the bulk, each next one what was committed during
 * the last, until one copies little. The store's connection then copies that little itself (a
 * passive checkpoint of a few dozen pages and its fsyncs, ~10 ms measured), so that the WAL is
 * fully copied and the store's next commit starts it over: the WAL does not grow while the store
 * commits without pause.
 *
 * The worker is started on the first request, so a short-lived store never starts one. Until
 * then, and for good if the worker cannot start, fails, or makes no progress, the store's own
 * connection checkpoints as before (`wal_autocheckpoint`). `close()` closes the worker's
 * connection before the store closes its own, so that the store's is the last one and, as
 * before, folds the WAL into the file and removes it.
 */
export interface WalCheckpointer {
  /** After each committed transaction of the store (outside any transaction). */
  afterCommit(): void;
  /** Before the store's connection closes: waits (bounded) until the worker's connection is closed. */
  close(): void;
}

/** Commits between two checkpoint requests: a checkpointed turn is one commit of ~7 pages, so ~10,000 pages, as `wal_autocheckpoint` was. */
export const COMMITS_PER_CHECKPOINT = 1_500;
/** Commits after a request without an answer: the worker is taken for stuck, and the store checkpoints itself. */
const STUCK_AFTER_COMMITS = 20 * COMMITS_PER_CHECKPOINT;
/** The longest `close()` waits for a checkpoint in progress to end and the worker to close its connection. */
const CLOSE_WAIT_MS = 10_000;
/** At most this many passive rounds per request; the last round copied fewer than SMALL_ROUND_PAGES. */
const MAX_ROUNDS = 8;
const SMALL_ROUND_PAGES = 64;

/**
 * The cells (Int32Array indexes of shared memory) through which the store and its worker talk.
 * Not messages: a run whose model answers at once is one long chain of promises, and the store's
 * event loop would not see a reply for seconds.
 */
const REQUESTED = 0;
const DONE = 1;
const CLOSED = 2;
const FAILED = 3;
/** Written to REQUESTED by `close()`. */
const CLOSE = -1;

/**
 * The worker's code, evaluated as a CommonJS script (no file to locate next to a bundle). It waits
 * for REQUESTED to move, runs its passive rounds and publishes the request in DONE. On CLOSE, or
 * when anything fails (FAILED), it closes its connection and sets CLOSED.
 */
const WORKER_SOURCE = `
const { workerData } = require('node:worker_threads');
const { DatabaseSync } = require('node:sqlite');
const cells = new Int32Array(workerData.cells);
let database;
try {
  database = new DatabaseSync(workerData.path, { timeout: workerData.busyTimeoutMs });
  const passive = database.prepare('PRAGMA wal_checkpoint(PASSIVE)');
  let seen = 0;
  for (;;) {
    Atomics.wait(cells, ${REQUESTED}, seen);
    const requested = Atomics.load(cells, ${REQUESTED});
    if (requested === ${CLOSE}) break;
    let copiedBefore = 0;
    for (let round = 0; round < ${MAX_ROUNDS}; round += 1) {
      const copied = Number(passive.get().checkpointed);
      const small = round > 0 && copied - copiedBefore < ${SMALL_ROUND_PAGES};
      copiedBefore = copied;
      if (small) break;
    }
    seen = requested;
    Atomics.store(cells, ${DONE}, seen);
  }
} catch {
  Atomics.store(cells, ${FAILED}, 1);
} finally {
  try { database?.close(); } catch {}
  Atomics.store(cells, ${CLOSED}, 1);
  Atomics.notify(cells, ${CLOSED});
}
`;

/** For a database file; `:memory:` has no WAL and gets a checkpointer that does nothing. */
export function walCheckpointer(database: DatabaseSync, path: string, busyTimeoutMs: number): WalCheckpointer {
  if (path === ':memory:') return { afterCommit() {}, close() {} };
  let commits = 0;
  let worker: Worker | undefined;
  let cells: Int32Array | undefined;
  let catchUp: StatementSync | undefined;
  /** The last request the store caught up after, and the commit count when the last request was made. */
  let caughtUp = 0;
  let requestedAt = 0;
  /** The worker could not start or failed: the store's connection checkpoints, for good. */
  let inline = false;

  const checkpointInline = () => {
    if (inline) return;
    inline = true;
    const stopped = worker;
    worker = undefined;
    if (stopped !== undefined && cells !== undefined) {
      Atomics.store(cells, REQUESTED, CLOSE);
      Atomics.notify(cells, REQUESTED);
      void stopped.terminate();
    }
    if (database.isOpen) database.exec(`PRAGMA wal_autocheckpoint = ${WAL_AUTOCHECKPOINT_PAGES}`);
  };

  const start = (): Worker | undefined => {
    const shared = new SharedArrayBuffer(4 * Int32Array.BYTES_PER_ELEMENT);
    try {
      const started = new Worker(WORKER_SOURCE, { eval: true, workerData: { path, busyTimeoutMs, cells: shared } });
      started.on('error', checkpointInline);
      started.on('exit', () => {
        if (worker === started) checkpointInline();
      });
      // After the listeners (adding one refs the worker again): the worker never keeps the
      // process alive. A process that exits without close() leaves the WAL for the next open to
      // fold in, as a crash does.
      started.unref();
      cells = new Int32Array(shared);
      catchUp = database.prepare('PRAGMA wal_checkpoint(PASSIVE)');
      database.exec('PRAGMA wal_autocheckpoint = 0');
      return started;
    } catch {
      checkpointInline();
      return undefined;
    }
  };

  const request = () => {
    worker ??= start();
    if (worker === undefined || cells === undefined) return;
    const requested = Atomics.load(cells, REQUESTED);
    // One request at a time: while the worker is at it, this one is skipped unless it is stuck.
    if (Atomics.load(cells, DONE) !== requested) {
      if (commits - requestedAt > STUCK_AFTER_COMMITS) checkpointInline();
      return;
    }
    requestedAt = commits;
    Atomics.store(cells, REQUESTED, requested + 1);
    Atomics.notify(cells, REQUESTED);
  };

  return {
    afterCommit() {
      if (inline) return;
      commits += 1;
      if (cells !== undefined) {
        if (Atomics.load(cells, FAILED) === 1) return checkpointInline();
        const done = Atomics.load(cells, DONE);
        if (done !== caughtUp) {
          caughtUp = done;
          try {
            catchUp?.get();
          } catch {
            // The commit stands; the checkpoints are the store's own from now on.
            return checkpointInline();
          }
        }
      }
      if (commits % COMMITS_PER_CHECKPOINT === 0) request();
    },
    close() {
      const open = worker;
      const shared = cells;
      inline = true;
      worker = undefined;
      if (open === undefined || shared === undefined) return;
      Atomics.store(shared, REQUESTED, CLOSE);
      Atomics.notify(shared, REQUESTED);
      // Synchronous on purpose: close() is, and the store's connection must be the last to close.
      Atomics.wait(shared, CLOSED, 0, CLOSE_WAIT_MS);
    },
  };
}
