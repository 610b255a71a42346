import { existsSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { describe, expect, it } from 'vitest';
import { ConfigError, readCheckpoint, RunError, sqliteStore, StoreError } from 'dualloop';
import { APPLICATION_ID, MIGRATIONS, openDatabase, SCHEMA_VERSION } from '../../src/checkpoint/sqlite/sqlite-schema.js';
import { asStored, event, history, runRecord, taskEntry, taskResult, turnEntry, T0, toolResult, workflowResult } from './builders.js';
import { useTempDir } from './temp-dir.js';
import { FIXTURE_RUN_ID, fixtureText, writeVersion1File } from '../checkpoint/fixtures.js';

const directory = useTempDir();

function pragma(path: string, name: string): number {
  const database = new DatabaseSync(path);
  try {
    return Number((database.prepare(`PRAGMA ${name}`).get() as Record<string, unknown>)[name]);
  } finally {
    database.close();
  }
}

/** A store file holding one run with a bit of everything; closed. */
function populatedFile(path: string, events = 3): void {
  const store = sqliteStore({ path });
  store.createRun(runRecord('run-a', { name: 'kept' }));
  for (let seq = 1; seq <= events; seq += 1) store.appendEvent(event('run-a', seq));
  store.recordToolResult('run-a', toolResult('call-1'));
  store.saveCheckpoint(taskEntry('run-a', 1));
  store.saveCheckpoint(turnEntry('run-a', 2, 1));
  store.saveResult(workflowResult('run-a', 'awaiting_approval'));
  store.acquireLease('run-a', 'holder-a', 30_000);
  store.close();
}

describe('sqliteStore files', () => {
  it('creates the file and its parent directories on first use, and reports the absolute path', () => {
    const path = join(directory(), 'deep', 'er', 'runs.db');
    const store = sqliteStore({ path });
    expect(existsSync(path)).toBe(true);
    expect(isAbsolute(store.path)).toBe(true);
    expect(store.kind).toBe('sqlite');
    store.close();
  });

  it('keeps everything across a close and a reopen', () => {
    const path = join(directory(), 'runs.db');
    populatedFile(path);
    const store = sqliteStore({ path });
    expect(store.getRun('run-a')).toEqual(runRecord('run-a', { name: 'kept' }));
    expect(store.readEvents('run-a')).toEqual([1, 2, 3].map((seq) => event('run-a', seq)));
    expect(store.getToolResult('run-a', 'call-1')).toEqual(toolResult('call-1'));
    expect(store.loadCheckpoint('run-a')).toEqual({ results: [taskResult(0)], entries: [asStored(taskEntry('run-a', 1)), asStored(turnEntry('run-a', 2, 1))] });
    expect(store.loadResult('run-a')).toEqual(workflowResult('run-a', 'awaiting_approval'));
    expect(store.acquireLease('run-a', 'holder-b', 30_000)).toMatchObject({ acquired: false, holder: 'holder-a' });
    store.appendEvent(event('run-a', 4));
    expect(() => store.appendEvent(event('run-a', 3))).toThrow(expect.objectContaining({ code: 'event_out_of_order' }));
    store.close();
  });

  it('marks the file as a dualloop database of the current schema version', () => {
    const path = join(directory(), 'runs.db');
    sqliteStore({ path }).close();
    expect(pragma(path, 'user_version')).toBe(SCHEMA_VERSION);
    expect(pragma(path, 'application_id')).toBe(APPLICATION_ID);
    expect(pragma(path, 'journal_mode')).toBeTypeOf('number');
    const database = new DatabaseSync(path);
    expect((database.prepare('PRAGMA journal_mode').get() as { journal_mode: string }).journal_mode).toBe('wal');
    database.close();
  });

  it('refuses, untouched, a database written by a newer schema', () => {
    const path = join(directory(), 'runs.db');
    sqliteStore({ path }).close();
    const database = new DatabaseSync(path);
    database.exec(`PRAGMA user_version = ${SCHEMA_VERSION + 1}`);
    database.close();
    const before = readFileSync(path);
    const error = (() => {
      try {
        sqliteStore({ path });
      } catch (thrown) {
        return thrown;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(StoreError);
    expect(error).toMatchObject({ code: 'store_future_schema', path });
    expect((error as Error).message).toContain(`schema version ${SCHEMA_VERSION + 1}`);
    expect((error as Error).message).toContain('upgrade dualloop');
    expect(readFileSync(path).equals(before)).toBe(true);
  });

  it('refuses a SQLite database of another application', () => {
    const path = join(directory(), 'other.db');
    const database = new DatabaseSync(path);
    database.exec('CREATE TABLE users (id INTEGER PRIMARY KEY)');
    database.close();
    expect(() => sqliteStore({ path })).toThrow(expect.objectContaining({ code: 'store_not_dualloop', message: expect.stringContaining('users') }));
    expect(pragma(path, 'user_version')).toBe(0);
  });

  it('refuses a file that is not a database, saying so', () => {
    const path = join(directory(), 'notes.db');
    writeFileSync(path, 'these are my notes, not a database; '.repeat(20));
    expect(() => sqliteStore({ path })).toThrow(expect.objectContaining({ name: 'StoreError', code: 'store_corrupt', message: expect.stringMatching(/notes\.db.*truncated or corrupt/) }));
  });

  it('gives a clear error for a truncated database file and never a fresh run', () => {
    const path = join(directory(), 'runs.db');
    populatedFile(path, 400);
    truncateSync(path, Math.floor(readFileSync(path).length / 2));
    const error = (() => {
      try {
        const store = sqliteStore({ path });
        store.getRun('run-a');
        store.readEvents('run-a');
        store.loadCheckpoint('run-a');
      } catch (thrown) {
        return thrown as StoreError;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(StoreError);
    expect(error?.code).toBe('store_corrupt');
    expect(error?.message).toContain(path);
    expect(error?.message).toContain('truncated or corrupt');
  });

  it('names the run and the row when a stored row is not JSON', () => {
    const path = join(directory(), 'runs.db');
    populatedFile(path);
    const database = new DatabaseSync(path);
    database.exec(`UPDATE checkpoint_entries SET body = '{"version": 1, "runId": "run-a", "progr' WHERE kind = 'turn'`);
    database.exec(`UPDATE events SET body = 'not json' WHERE seq = 2`);
    database.close();
    const store = sqliteStore({ path });
    expect(() => store.loadCheckpoint('run-a')).toThrow(RunError);
    expect(() => store.loadCheckpoint('run-a')).toThrow(expect.objectContaining({ code: 'checkpoint_corrupt', runId: 'run-a', message: expect.stringMatching(/run run-a: checkpoint #2 .* not valid JSON/) }));
    expect(() => store.readEvents('run-a')).toThrow(expect.objectContaining({ code: 'store_corrupt', runId: 'run-a', message: expect.stringContaining('event is not valid JSON') }));
    store.close();
  });

  it('fails every call after close() with a StoreError, and closes twice quietly', () => {
    const store = sqliteStore({ path: join(directory(), 'runs.db') });
    store.close();
    store.close();
    expect(() => store.getRun('run-a')).toThrow(expect.objectContaining({ code: 'store_failed', message: expect.stringContaining('after close()') }));
  });

  it('lists every invalid option at once', () => {
    const options = { path: '', busyTimeoutMs: -1, synchronous: 'sometimes' } as unknown as Parameters<typeof sqliteStore>[0];
    const error = (() => {
      try {
        sqliteStore(options);
      } catch (thrown) {
        return thrown as ConfigError;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect(error?.issues.map((issue) => issue.path)).toEqual(['path', 'busyTimeoutMs', 'synchronous']);
  });

  it('shares runs and leases between two stores open on the same file', () => {
    const path = join(directory(), 'runs.db');
    const first = sqliteStore({ path });
    const second = sqliteStore({ path, synchronous: 'full' });
    first.createRun(runRecord('run-a'));
    expect(second.getRun('run-a')).toEqual(runRecord('run-a'));
    expect(() => second.createRun(runRecord('run-a'))).toThrow(expect.objectContaining({ code: 'run_exists' }));
    const lease = first.acquireLease('run-a', 'first', 30_000);
    expect(lease).toMatchObject({ acquired: true, token: 1 });
    expect(second.acquireLease('run-a', 'second', 30_000)).toEqual({ acquired: false, holder: 'first', expiresAt: lease.expiresAt });
    first.releaseLease('run-a', 'first');
    expect(second.acquireLease('run-a', 'second', 30_000)).toMatchObject({ acquired: true, token: 2 });
    first.close();
    second.close();
  });

  it('opens and reads a file while another connection holds its write lock; a write waits busyTimeoutMs, then names the lock', () => {
    const path = join(directory(), 'runs.db');
    populatedFile(path);
    // As a process stopped inside its commit (SIGSTOP, a debugger, a frozen VM) would: it keeps SQLite's write lock.
    const writer = new DatabaseSync(path);
    writer.exec('BEGIN IMMEDIATE');
    try {
      const store = sqliteStore({ path, busyTimeoutMs: 50 });
      expect(store.getRun('run-a')).toEqual(runRecord('run-a', { name: 'kept' }));
      expect(store.readEvents('run-a')).toHaveLength(3);
      expect(() => store.createRun(runRecord('run-b'))).toThrow(expect.objectContaining({ code: 'store_failed', message: expect.stringMatching(/database is locked/) }));
      writer.exec('ROLLBACK');
      store.createRun(runRecord('run-b'));
      expect(store.getRun('run-b')).toEqual(runRecord('run-b'));
      store.close();
    } finally {
      if (writer.isTransaction) writer.exec('ROLLBACK');
      writer.close();
    }
  });
});

describe('sqliteStore checkpoint history on disk', () => {
  it('migrates a file of schema version 1 in place: its checkpoints become version 1 snapshots of the history', () => {
    const path = join(directory(), 'old.db');
    writeVersion1File(path, 'v1-mid-task.json');
    expect(pragma(path, 'user_version')).toBe(1);
    const store = sqliteStore({ path });
    expect(pragma(path, 'user_version')).toBe(SCHEMA_VERSION);
    expect(store.listCheckpoints(FIXTURE_RUN_ID)).toEqual([{ sequence: 3, kind: 'turn', version: 1, savedAt: 1_700_000_000_000, eventSeq: 25, tasksDone: 1, snapshot: true }]);
    expect(store.loadCheckpoint(FIXTURE_RUN_ID)).toEqual({ results: [], entries: [JSON.parse(fixtureText('v1-mid-task.json'))] });
    store.close();
  });

  it('keeps `checkpoints` as a read-only view for SQL written against schema version 1', () => {
    const path = join(directory(), 'runs.db');
    const store = sqliteStore({ path });
    store.createRun(runRecord('run-a'));
    for (const entry of history('run-a').slice(0, 3)) store.saveCheckpoint(entry);
    store.close();
    const reader = new DatabaseSync(path, { readOnly: true });
    const rows = reader.prepare('SELECT sequence, kind, tasks_done, body FROM checkpoints ORDER BY sequence').all() as { sequence: number; kind: string; tasks_done: number; body: string }[];
    reader.close();
    expect(rows.map((row) => [row.sequence, row.kind, row.tasks_done])).toEqual([
      [1, 'turn', 0],
      [2, 'task', 1],
      [3, 'turn', 1],
    ]);
    expect(JSON.parse(rows[2]!.body)).toEqual({
      version: 2,
      runId: 'run-a',
      kind: 'turn',
      sequence: 3,
      savedAt: history('run-a')[2]!.savedAt,
      eventSeq: 30,
      progress: { modelCallIndex: 3, results: [{ taskId: 'task-1' }] },
    });
  });

  it('reports a missing entry as damage when the run is read, never as a fresh start', async () => {
    const path = join(directory(), 'runs.db');
    const store = sqliteStore({ path });
    store.createRun(runRecord('run-a'));
    for (const entry of history('run-a').slice(0, 4)) store.saveCheckpoint(entry);
    const other = new DatabaseSync(path);
    other.exec('DELETE FROM checkpoint_entries WHERE sequence = 3');
    other.close();
    await expect(readCheckpoint(store, 'run-a')).rejects.toMatchObject({ name: 'RunError', code: 'checkpoint_corrupt', message: expect.stringContaining('checkpoint #3 is missing before #4') });
    expect(() => store.audit('run-a')).toThrow(expect.objectContaining({ code: 'checkpoint_corrupt' }));
    store.close();
  });
});

describe('sqlite schema migrations', () => {
  const settings = { busyTimeoutMs: 1000, synchronous: 'normal' } as const;

  it('migrates a schema version 2 file to the current version: its runs are not forks, new ones may be', () => {
    const path = join(directory(), 'v2.db');
    const old = openDatabase({ path, ...settings, migrations: MIGRATIONS.slice(0, 2) });
    old.prepare('INSERT INTO runs (run_id, options_digest, tasks, tasks_total, created_at) VALUES (?, ?, ?, ?, ?)').run('old-run', 'digest', JSON.stringify(runRecord('old-run').tasks), 2, T0);
    old.close();
    expect(pragma(path, 'user_version')).toBe(2);
    const store = sqliteStore({ path });
    expect(pragma(path, 'user_version')).toBe(SCHEMA_VERSION);
    expect(store.getRun('old-run')).toEqual(runRecord('old-run', { optionsDigest: 'digest' }));
    store.createRun(runRecord('new-run', { createdAt: T0 + 1, forkOf: { runId: 'old-run', at: { task: 1, turn: 2 } } }));
    expect(store.listRuns().map((run) => run.forkOf)).toEqual([{ runId: 'old-run', at: { task: 1, turn: 2 } }, undefined]);
    store.close();
  });
  it('migrates a schema version 5 file to the rowid-range tables of version 6: every read answers as before, and the run goes on', () => {
    const current = join(directory(), 'current.db');
    populatedFile(current, 5);
    const before = sqliteStore({ path: current });
    const answers = (store: ReturnType<typeof sqliteStore>) => ({
      events: store.readEvents('run-a'),
      after2: store.readEvents('run-a', 2),
      checkpoint: store.loadCheckpoint('run-a'),
      checkpoints: store.listCheckpoints('run-a'),
      tool: store.getToolResult('run-a', 'call-1'),
      result: store.loadResult('run-a'),
      audit: store.audit('run-a'),
      runs: store.listRuns(),
    });
    const expected = answers(before);
    before.close();
    // The same rows in a file of schema version 5, as the previous release laid them out.
    const path = join(directory(), 'v5.db');
    const old = openDatabase({ path, ...settings, migrations: MIGRATIONS.slice(0, 5) });
    old.exec(`ATTACH DATABASE '${current}' AS current`);
    old.exec(`
      INSERT INTO runs (id, run_id, name, options_digest, tasks, tasks_total, created_at, fork_of_run_id, fork_of_at)
        SELECT id, run_id, name, options_digest, tasks, tasks_total, created_at, fork_of_run_id, fork_of_at FROM current.runs;
      INSERT INTO events (run, seq, type, at, body) SELECT run, seq, type, at, body FROM current.events;
      INSERT INTO tool_results (run, tool_call_id, body) SELECT run, tool_call_id, body FROM current.tool_results;
      INSERT INTO checkpoint_entries (run, sequence, kind, version, saved_at, event_seq, task_id, task_index, turn, tasks_done, snapshot, body)
        SELECT run, sequence, kind, version, saved_at, event_seq, task_id, task_index, turn, tasks_done, snapshot, body FROM current.checkpoint_entries;
      INSERT INTO checkpoint_results SELECT * FROM current.checkpoint_results;
      INSERT INTO results SELECT * FROM current.results;
      INSERT INTO leases SELECT * FROM current.leases;`);
    old.exec('DETACH DATABASE current');
    old.close();
    expect(pragma(path, 'user_version')).toBe(5);

    const store = sqliteStore({ path });
    expect(pragma(path, 'user_version')).toBe(SCHEMA_VERSION);
    expect(answers(store)).toEqual(expected);
    store.appendEvent(event('run-a', 6));
    store.saveCheckpoint(turnEntry('run-a', 3, 1, 2));
    expect(store.readEvents('run-a', 4).map((logged) => logged.seq)).toEqual([5, 6]);
    expect(store.listCheckpoints('run-a').map((entry) => entry.sequence)).toEqual([1, 2, 3]);
    expect(() => store.appendEvent(event('run-a', 6))).toThrow(expect.objectContaining({ code: 'event_out_of_order' }));
    store.close();
    const database = new DatabaseSync(path);
    const rowids = database.prepare('SELECT id - run * 4294967296 AS seq FROM events ORDER BY id').all() as { seq: number }[];
    database.close();
    expect(rowids.map((row) => row.seq)).toEqual([1, 2, 3, 4, 5, 6]);
  });
  const v1 = { version: 1, description: 'one table', sql: 'CREATE TABLE one (id INTEGER PRIMARY KEY);' };
  const v2 = { version: 2, description: 'a second table', sql: 'CREATE TABLE two (id INTEGER PRIMARY KEY);' };

  it('applies only the migrations a database has not seen, in order', () => {
    const path = join(directory(), 'migrating.db');
    openDatabase({ path, ...settings, migrations: [v1] }).close();
    expect(pragma(path, 'user_version')).toBe(1);
    const database = openDatabase({ path, ...settings, migrations: [v1, v2] });
    const tables = (database.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name").all() as { name: string }[]).map((row) => row.name);
    database.close();
    expect(tables).toEqual(['one', 'two']);
    expect(pragma(path, 'user_version')).toBe(2);
  });

  it('leaves the version unchanged when a migration fails', () => {
    const path = join(directory(), 'migrating.db');
    openDatabase({ path, ...settings, migrations: [v1] }).close();
    const broken = { version: 2, description: 'broken', sql: 'CREATE TABLE two (id INTEGER PRIMARY KEY); CREATE TABLE one (x);' };
    expect(() => openDatabase({ path, ...settings, migrations: [v1, broken] })).toThrow(StoreError);
    expect(pragma(path, 'user_version')).toBe(1);
    const database = new DatabaseSync(path);
    expect(database.prepare("SELECT count(*) AS count FROM sqlite_schema WHERE name = 'two'").get()).toEqual({ count: 0 });
    database.close();
  });
});
