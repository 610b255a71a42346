import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { describe, expect, it } from 'vitest';
import { sqliteStore, StoreError, type KernelEvent } from 'dualloop';
import { asStored, event, runRecord, turnEntry, T0, toolResult, workflowResult } from './builders.js';
import { useTempDir } from './temp-dir.js';

/*
 * What another process (or the process after a SIGKILL) finds in the file: read through a second
 * connection, never through the store that wrote it.
 */

const directory = useTempDir();

function onDisk(path: string): number[] {
  const reader = new DatabaseSync(path, { readOnly: true });
  try {
    return (reader.prepare('SELECT seq FROM events ORDER BY seq').all() as { seq: number }[]).map((row) => row.seq);
  } finally {
    reader.close();
  }
}

function toolResultsOnDisk(path: string): string[] {
  const reader = new DatabaseSync(path, { readOnly: true });
  try {
    return (reader.prepare('SELECT tool_call_id FROM tool_results ORDER BY tool_call_id').all() as { tool_call_id: string }[]).map((row) => row.tool_call_id);
  } finally {
    reader.close();
  }
}

const nextMacrotask = () => new Promise<void>((resolve) => setImmediate(resolve));

function toolStart(runId: string, seq: number, toolCallId: string): KernelEvent {
  return { type: 'tool_execution_start', taskId: 'task-1', taskIndex: 0, turn: 1, toolCallId, name: 'lookup', args: {}, runId, seq, at: T0 + seq };
}

function queued(runId: string, seq: number): KernelEvent {
  return { type: 'message_queued', queue: 'steering', id: seq, content: 'look again', runId, seq, at: T0 + seq };
}

describe('sqliteStore event log durability', () => {
  it('commits every event appended before a checkpoint together with the checkpoint', () => {
    const path = join(directory(), 'runs.db');
    const store = sqliteStore({ path });
    store.createRun(runRecord('run-a'));
    for (let seq = 1; seq <= 4; seq += 1) store.appendEvent(event('run-a', seq));
    store.saveCheckpoint(turnEntry('run-a', 1));
    expect(onDisk(path)).toEqual([1, 2, 3, 4]);
    store.close();
  });

  it('commits a tool result, with the events before it, when the next tool starts', () => {
    const path = join(directory(), 'runs.db');
    const store = sqliteStore({ path });
    store.createRun(runRecord('run-a'));
    store.appendEvent(event('run-a', 1));
    store.recordToolResult('run-a', toolResult('call-1'));
    expect(store.getToolResult('run-a', 'call-1')).toEqual(toolResult('call-1'));
    expect(toolResultsOnDisk(path)).toEqual([]);
    store.appendEvent(toolStart('run-a', 2, 'call-2'));
    expect(toolResultsOnDisk(path)).toEqual(['call-1']);
    expect(onDisk(path)).toEqual([1, 2]);
    store.close();
  });

  it('commits a tool result by the end of the macrotask, or with the next checkpoint if sooner', async () => {
    const path = join(directory(), 'runs.db');
    const store = sqliteStore({ path });
    store.createRun(runRecord('run-a'));
    store.recordToolResult('run-a', toolResult('call-1'));
    store.saveCheckpoint(turnEntry('run-a', 1));
    expect(toolResultsOnDisk(path)).toEqual(['call-1']);
    store.recordToolResult('run-a', toolResult('call-2'));
    await nextMacrotask();
    expect(toolResultsOnDisk(path)).toEqual(['call-1', 'call-2']);
    store.close();
  });

  it('commits a queue change at once, since no checkpoint holds it yet', () => {
    const path = join(directory(), 'runs.db');
    const store = sqliteStore({ path });
    store.createRun(runRecord('run-a'));
    store.appendEvent(event('run-a', 1));
    store.appendEvent(queued('run-a', 2));
    expect(onDisk(path)).toEqual([1, 2]);
    store.close();
  });

  it('commits other events by the end of the macrotask that appended them', async () => {
    const path = join(directory(), 'runs.db');
    const store = sqliteStore({ path });
    store.createRun(runRecord('run-a'));
    store.appendEvent(event('run-a', 1));
    store.appendEvent(event('run-a', 2, 'warning'));
    await nextMacrotask();
    expect(onDisk(path)).toEqual([1, 2]);
    store.close();
  });

  it('commits what is queued on close() and on the final result', () => {
    const path = join(directory(), 'runs.db');
    const store = sqliteStore({ path });
    store.createRun(runRecord('run-a'));
    store.createRun(runRecord('run-b'));
    store.appendEvent(event('run-a', 1));
    store.saveResult(workflowResult('run-a'));
    expect(onDisk(path)).toEqual([1]);
    store.appendEvent(event('run-b', 1));
    store.close();
    expect(onDisk(path)).toEqual([1, 1]);
  });

  it('keeps events queued through a failed write and commits them with the next one', () => {
    const path = join(directory(), 'runs.db');
    const store = sqliteStore({ path, busyTimeoutMs: 0 });
    store.createRun(runRecord('run-a'));
    store.appendEvent(event('run-a', 1));
    store.appendEvent(event('run-a', 2));
    const other = new DatabaseSync(path);
    other.exec('BEGIN IMMEDIATE');
    let failure: unknown;
    try {
      store.saveCheckpoint(turnEntry('run-a', 1));
    } catch (error) {
      failure = error;
    }
    other.exec('ROLLBACK');
    other.close();
    expect(failure).toBeInstanceOf(StoreError);
    expect(failure).toMatchObject({ code: 'store_failed', runId: 'run-a', message: expect.stringMatching(/saving a checkpoint for run run-a failed: database is locked/) });
    expect(onDisk(path)).toEqual([]);
    expect(store.loadCheckpoint('run-a')).toBeUndefined();

    store.appendEvent(event('run-a', 3));
    store.saveCheckpoint(turnEntry('run-a', 2));
    expect(onDisk(path)).toEqual([1, 2, 3]);
    expect(store.loadCheckpoint('run-a')).toEqual({ results: [], entries: [asStored(turnEntry('run-a', 2))] });
    store.close();
  });

  it('does not let events another writer already logged block the writes of other runs', () => {
    const path = join(directory(), 'runs.db');
    const first = sqliteStore({ path });
    const second = sqliteStore({ path });
    first.createRun(runRecord('run-a'));
    first.createRun(runRecord('run-b'));
    first.appendEvent(event('run-a', 1));
    second.appendEvent(event('run-a', 1, 'warning'));
    second.saveCheckpoint(turnEntry('run-a', 1));
    expect(() => first.saveCheckpoint(turnEntry('run-a', 2))).toThrow(expect.objectContaining({ code: 'store_failed', message: expect.stringContaining('UNIQUE') }));
    first.appendEvent(event('run-b', 1));
    first.saveCheckpoint(turnEntry('run-b', 1));
    expect(first.readEvents('run-b')).toEqual([event('run-b', 1)]);
    expect(first.readEvents('run-a')).toEqual([event('run-a', 1, 'warning')]);
    expect(() => first.appendEvent(event('run-a', 1))).toThrow(expect.objectContaining({ code: 'event_out_of_order' }));
    first.close();
    second.close();
  });

  it('reads its own queued events back at once', () => {
    const store = sqliteStore({ path: join(directory(), 'runs.db') });
    store.createRun(runRecord('run-a'));
    store.appendEvent(event('run-a', 1));
    expect(store.readEvents('run-a')).toEqual([event('run-a', 1)]);
    expect(store.audit('run-a')?.events).toBe(1);
    store.close();
  });
});
