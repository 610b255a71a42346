// Part of the conformance suite (test/store/conformance.ts): the append-only checkpoint history (ADR/0120).
import { describe, expect, it } from 'vitest';
import { readCheckpoint, type CheckpointEntry, type CheckpointStore, type StoredCheckpoints } from 'dualloop';
import { asStored, history, runRecord, taskEntry, taskResult, turnEntry } from './builders.js';
import { failureOf } from './conformance.js';

/** What a store hands back, compared without the results it keeps by position. */
function shape(stored: StoredCheckpoints | undefined) {
  if (stored === undefined) return undefined;
  return { results: stored.results, entries: stored.entries.map((entry) => asStored(entry as CheckpointEntry)) };
}

/** What `loadCheckpoint` must answer at each entry of `history()`: the entries from the latest snapshot, and the results committed then. */
function expectedAt(runId: string, sequence: number) {
  const entries = history(runId);
  const from = { 1: 0, 2: 1, 3: 1, 4: 1, 5: 4 }[sequence]!;
  const done = entries[sequence - 1]!.tasksDone;
  return { results: [taskResult(0), taskResult(1)].slice(0, done), entries: entries.slice(from, sequence).map(asStored) };
}

export function describeHistoryConformance(current: () => CheckpointStore): void {
  describe('checkpoint history', () => {
    it('answers nothing before the first entry, then the entries from the latest snapshot and the results committed so far', async () => {
      const store = current();
      await store.createRun(runRecord('run-a'));
      expect(await store.loadCheckpoint('run-a')).toBeUndefined();
      expect(await store.listCheckpoints('run-a')).toEqual([]);
      for (const entry of history('run-a')) {
        await store.saveCheckpoint(entry);
        expect(shape(await store.loadCheckpoint('run-a'))).toEqual(expectedAt('run-a', entry.sequence));
      }
    });

    it('keeps every entry: the history at any earlier one can be read back (fork, time travel)', async () => {
      const store = current();
      await store.createRun(runRecord('run-a'));
      for (const entry of history('run-a')) await store.saveCheckpoint(entry);
      for (const sequence of [1, 2, 3, 4, 5]) expect(shape(await store.loadCheckpoint('run-a', { sequence }))).toEqual(expectedAt('run-a', sequence));
      expect(shape(await store.loadCheckpoint('run-a', { sequence: 99 }))).toEqual(expectedAt('run-a', 5));
      expect(await store.loadCheckpoint('run-a', { sequence: 0 })).toBeUndefined();
    });

    it('hands back what rebuilds the state at each entry', async () => {
      const store = current();
      await store.createRun(runRecord('run-a'));
      for (const entry of history('run-a')) await store.saveCheckpoint(entry);
      const atTurn = await readCheckpoint(store, 'run-a', { sequence: 4 });
      expect(atTurn).toMatchObject({ runId: 'run-a', version: 2, sequence: 4, kind: 'turn', eventSeq: 40 });
      expect(atTurn?.progress.results).toEqual([taskResult(0)]);
      expect(atTurn?.progress.active?.task.id).toBe('task-2');
      expect(atTurn?.progress.active?.point.progress.turns).toEqual(taskResult(1).turns);
      expect(atTurn?.progress.active?.point.progress.messages).toEqual([
        { role: 'user', content: 'second', source: 'task' },
        { role: 'assistant', content: 'done' },
      ]);
      const atEnd = await readCheckpoint(store, 'run-a');
      expect(atEnd?.progress.results).toEqual([taskResult(0), taskResult(1)]);
      expect(atEnd?.progress.active).toBeUndefined();
    });

    it('lists every entry without its body, oldest first', async () => {
      const store = current();
      await store.createRun(runRecord('run-a'));
      for (const entry of history('run-a')) await store.saveCheckpoint(entry);
      expect(await store.listCheckpoints('run-a')).toEqual([
        { sequence: 1, kind: 'turn', version: 2, savedAt: history('run-a')[0]!.savedAt, eventSeq: 10, taskId: 'task-1', taskIndex: 0, turn: 1, tasksDone: 0, snapshot: false },
        { sequence: 2, kind: 'task', version: 2, savedAt: history('run-a')[1]!.savedAt, eventSeq: 20, taskId: 'task-1', taskIndex: 0, tasksDone: 1, snapshot: true },
        { sequence: 3, kind: 'turn', version: 2, savedAt: history('run-a')[2]!.savedAt, eventSeq: 30, taskId: 'task-2', taskIndex: 1, turn: 1, tasksDone: 1, snapshot: false },
        { sequence: 4, kind: 'turn', version: 2, savedAt: history('run-a')[3]!.savedAt, eventSeq: 40, taskId: 'task-2', taskIndex: 1, turn: 2, tasksDone: 1, snapshot: false },
        { sequence: 5, kind: 'task', version: 2, savedAt: history('run-a')[4]!.savedAt, eventSeq: 50, taskId: 'task-2', taskIndex: 1, tasksDone: 2, snapshot: true },
      ]);
      expect(await store.listCheckpoints('nope')).toEqual([]);
    });

    it('is append-only: refuses an entry that is not after the last one, or results that do not follow, and changes nothing', async () => {
      const store = current();
      await store.createRun(runRecord('run-a'));
      const [first, second] = history('run-a');
      await store.saveCheckpoint(first!);
      await store.saveCheckpoint(second!);
      const refused: CheckpointEntry[] = [
        turnEntry('run-a', 2, 1, 1),
        turnEntry('run-a', 1, 1, 1),
        // Commits a result at position 2 while one is committed.
        { ...taskEntry('run-a', 3, 3), results: [taskResult(1)] },
      ];
      for (const entry of refused) {
        const error = await failureOf(() => store.saveCheckpoint(entry));
        expect(error.code).toBe('checkpoint_out_of_order');
        expect(error.message).toContain('run-a');
      }
      expect(shape(await store.loadCheckpoint('run-a'))).toEqual(expectedAt('run-a', 2));
      expect((await store.listCheckpoints('run-a')).map((line) => line.sequence)).toEqual([1, 2]);
      await store.saveCheckpoint(history('run-a')[2]!);
      expect(shape(await store.loadCheckpoint('run-a'))).toEqual(expectedAt('run-a', 3));
    });

    it('keeps each run its own history', async () => {
      const store = current();
      await store.createRun(runRecord('run-a'));
      await store.createRun(runRecord('run-b'));
      const [a1, a2] = history('run-a');
      await store.saveCheckpoint(a1!);
      await store.saveCheckpoint(turnEntry('run-b', 1));
      await store.saveCheckpoint(a2!);
      expect(shape(await store.loadCheckpoint('run-a'))).toEqual(expectedAt('run-a', 2));
      expect(shape(await store.loadCheckpoint('run-b'))).toEqual({ results: [], entries: [asStored(turnEntry('run-b', 1))] });
      expect((await store.listCheckpoints('run-b')).map((line) => line.sequence)).toEqual([1]);
    });
  });
}
