/**
 * The conformance suite every `CheckpointStore` passes: memory and SQLite today, Postgres or
 * Redis tomorrow. Call `describeCheckpointStore(name, makeStore)` from a test file; `makeStore`
 * returns a new, empty store for each test (a fresh file, schema or key prefix) and the suite
 * closes it afterwards. Methods may be synchronous or return promises: the suite awaits both.
 * See docs/durability.md, "Writing another store".
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CheckpointStore, MaybePromise } from 'dualloop';
import { describeAuditConformance } from './conformance-audit.js';
import { describeGraphAuditConformance } from './conformance-graph-audit.js';
import { describeKernelConformance } from './conformance-kernel.js';
import { describeLeaseConformance } from './conformance-leases.js';
import { describeHistoryConformance } from './conformance-history.js';
import { describeForkConformance } from './conformance-forks.js';
import { event, runRecord, T0, taskEntry, taskResult, toolResult, workflowResult } from './builders.js';

export type StoreFactory = () => MaybePromise<CheckpointStore>;

/** Awaits `action` and returns what it threw (or rejected with); fails the test when it did not. */
export async function failureOf(action: () => unknown): Promise<Error & { code?: string; runId?: string }> {
  try {
    await action();
  } catch (error) {
    return error as Error & { code?: string };
  }
  throw new Error('expected the call to fail, and it succeeded');
}

/** Gives each test of a block a fresh store, closed after the test. */
export function useStore(makeStore: StoreFactory): () => CheckpointStore {
  let store: CheckpointStore | undefined;
  beforeEach(async () => {
    store = await makeStore();
  });
  afterEach(async () => {
    await store?.close?.();
    store = undefined;
  });
  return () => {
    if (store === undefined) throw new Error('no store: call inside a test');
    return store;
  };
}

export function describeCheckpointStore(name: string, makeStore: StoreFactory): void {
  describe(`CheckpointStore conformance: ${name}`, () => {
    const current = useStore(makeStore);

    describe('runs', () => {
      it('keeps the run record as given', async () => {
        const store = current();
        const record = runRecord('run-a', { name: 'nightly' });
        await store.createRun(record);
        expect(await store.getRun('run-a')).toEqual(record);
        expect(typeof store.kind).toBe('string');
      });

      it('keeps a record without a name without inventing one', async () => {
        const store = current();
        await store.createRun(runRecord('run-a'));
        expect(await store.getRun('run-a')).not.toHaveProperty('name');
      });

      it('refuses a second run with the same id and keeps the first', async () => {
        const store = current();
        await store.createRun(runRecord('run-a', { optionsDigest: 'first' }));
        const error = await failureOf(() => store.createRun(runRecord('run-a', { optionsDigest: 'second' })));
        expect(error.code).toBe('run_exists');
        expect(error.message).toContain('run-a');
        expect((await store.getRun('run-a'))?.optionsDigest).toBe('first');
      });

      it('answers reads about an unknown run with nothing', async () => {
        const store = current();
        expect(await store.getRun('nope')).toBeUndefined();
        expect(await store.loadCheckpoint('nope')).toBeUndefined();
        expect(await store.getToolResult('nope', 'call-1')).toBeUndefined();
        expect(await store.readEvents('nope')).toEqual([]);
        expect(await store.loadResult('nope')).toBeUndefined();
        expect(await store.audit('nope')).toBeUndefined();
        await store.releaseLease('nope', 'someone');
      });

      it('refuses writes for an unknown run, naming it', async () => {
        const store = current();
        const writes: (() => unknown)[] = [
          () => store.saveCheckpoint(taskEntry('ghost', 1)),
          () => store.recordToolResult('ghost', toolResult('call-1')),
          () => store.appendEvent(event('ghost', 1)),
          () => store.saveResult(workflowResult('ghost')),
          () => store.acquireLease('ghost', 'me', 1000),
        ];
        for (const write of writes) {
          const error = await failureOf(write);
          expect(error.code).toBe('run_not_found');
          expect(error.message).toContain('ghost');
        }
        expect(await store.getRun('ghost')).toBeUndefined();
      });
    });

    describe('tool results', () => {
      it('returns a recorded result by run and tool call id, and nothing for others', async () => {
        const store = current();
        await store.createRun(runRecord('run-a'));
        await store.createRun(runRecord('run-b'));
        await store.recordToolResult('run-a', toolResult('call-1'));
        await store.recordToolResult('run-a', toolResult('call-2', 'text result'));
        expect(await store.getToolResult('run-a', 'call-1')).toEqual(toolResult('call-1'));
        expect(await store.getToolResult('run-a', 'call-2')).toEqual(toolResult('call-2', 'text result'));
        expect(await store.getToolResult('run-a', 'call-3')).toBeUndefined();
        expect(await store.getToolResult('run-b', 'call-1')).toBeUndefined();
      });

      it('keeps the last result recorded for the same call', async () => {
        const store = current();
        await store.createRun(runRecord('run-a'));
        await store.recordToolResult('run-a', toolResult('call-1', 1));
        await store.recordToolResult('run-a', toolResult('call-1', 2));
        expect((await store.getToolResult('run-a', 'call-1'))?.result).toBe(2);
      });
    });

    describe('event log', () => {
      it('returns the events in seq order, all of them or those after a seq', async () => {
        const store = current();
        await store.createRun(runRecord('run-a'));
        for (let seq = 1; seq <= 5; seq += 1) await store.appendEvent(event('run-a', seq, seq % 2 === 0 ? 'warning' : 'turn_start'));
        expect((await store.readEvents('run-a')).map((item) => item.seq)).toEqual([1, 2, 3, 4, 5]);
        expect(await store.readEvents('run-a')).toEqual([1, 2, 3, 4, 5].map((seq) => event('run-a', seq, seq % 2 === 0 ? 'warning' : 'turn_start')));
        expect((await store.readEvents('run-a', 2)).map((item) => item.seq)).toEqual([3, 4, 5]);
        expect(await store.readEvents('run-a', 5)).toEqual([]);
      });

      it('keeps the logs of interleaved runs apart, with gaps in seq allowed', async () => {
        const store = current();
        await store.createRun(runRecord('run-a'));
        await store.createRun(runRecord('run-b'));
        await store.appendEvent(event('run-a', 1));
        await store.appendEvent(event('run-b', 1));
        await store.appendEvent(event('run-a', 2));
        await store.appendEvent(event('run-b', 7));
        expect((await store.readEvents('run-a')).map((item) => item.seq)).toEqual([1, 2]);
        expect((await store.readEvents('run-b')).map((item) => [item.runId, item.seq])).toEqual([
          ['run-b', 1],
          ['run-b', 7],
        ]);
      });

      it('is append-only: a seq that is not after the last one is refused', async () => {
        const store = current();
        await store.createRun(runRecord('run-a'));
        await store.appendEvent(event('run-a', 1));
        await store.appendEvent(event('run-a', 2));
        for (const seq of [2, 1]) {
          const error = await failureOf(() => store.appendEvent(event('run-a', seq, 'warning')));
          expect(error.code).toBe('event_out_of_order');
          expect(error.message).toContain('run-a');
        }
        expect(await store.readEvents('run-a')).toEqual([event('run-a', 1), event('run-a', 2)]);
      });

      it('hands out a list the caller may change without changing the log', async () => {
        const store = current();
        await store.createRun(runRecord('run-a'));
        await store.appendEvent(event('run-a', 1));
        const events = (await store.readEvents('run-a')) as unknown[];
        events.push('junk');
        expect(await store.readEvents('run-a')).toHaveLength(1);
      });
    });

    describe('results and the run list', () => {
      it('keeps the latest result of a run', async () => {
        const store = current();
        await store.createRun(runRecord('run-a'));
        expect(await store.loadResult('run-a')).toBeUndefined();
        await store.saveResult(workflowResult('run-a', 'awaiting_approval'));
        await store.saveResult(workflowResult('run-a', 'goal_achieved'));
        expect(await store.loadResult('run-a')).toEqual(workflowResult('run-a', 'goal_achieved'));
      });

      it('lists runs newest first (the later created first on a tie), with their progress', async () => {
        const store = current();
        await store.createRun(runRecord('old', { createdAt: T0 }));
        await store.createRun(runRecord('tie-1', { createdAt: T0 + 10, name: 'named' }));
        await store.createRun(runRecord('tie-2', { createdAt: T0 + 10 }));
        await store.createRun(runRecord('new', { createdAt: T0 + 20 }));
        await store.saveCheckpoint(taskEntry('tie-1', 1, 1));
        await store.saveResult(workflowResult('old', 'max_turns'));
        const runs = await store.listRuns();
        expect(runs.map((run) => run.runId)).toEqual(['new', 'tie-2', 'tie-1', 'old']);
        expect(runs[2]).toEqual({ runId: 'tie-1', name: 'named', createdAt: T0 + 10, tasksDone: 1, tasksTotal: 2 });
        expect(runs[3]).toEqual({ runId: 'old', createdAt: T0, stop: workflowResult('old', 'max_turns').stop, tasksDone: 2, tasksTotal: 2 });
        expect(runs[0]).toEqual({ runId: 'new', createdAt: T0 + 20, tasksDone: 0, tasksTotal: 2 });
        expect((await store.listRuns({ limit: 2 })).map((run) => run.runId)).toEqual(['new', 'tie-2']);
      });

      it('counts as done only the tasks that will not run again', async () => {
        const store = current();
        await store.createRun(runRecord('run-a'));
        await store.saveResult(workflowResult('run-a', 'context_canceled', [taskResult(0), taskResult(1, 'context_canceled')]));
        expect((await store.listRuns())[0]).toMatchObject({ runId: 'run-a', stop: { reason: 'context_canceled' }, tasksDone: 1, tasksTotal: 2 });
      });

      it('lists 20 runs unless told otherwise', async () => {
        const store = current();
        for (let index = 0; index < 25; index += 1) await store.createRun(runRecord(`run-${index}`, { createdAt: T0 + index }));
        const runs = await store.listRuns();
        expect(runs).toHaveLength(20);
        expect(runs[0]?.runId).toBe('run-24');
        expect(await store.listRuns({ limit: 100 })).toHaveLength(25);
      });
    });

    describeHistoryConformance(current);
    describeLeaseConformance(current);
    describeAuditConformance(current);
    describeGraphAuditConformance(current);
    describeKernelConformance(current);
    describeForkConformance(current);
  });
}
