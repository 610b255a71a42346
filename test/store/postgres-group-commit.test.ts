/**
 * Group commit on Postgres: writes of many runs that arrive at once commit together — fewer
 * transactions than writes (each row's `xmin` names the transaction that wrote it) — each run's
 * fence is checked inside the group, so a fenced-out run's write is refused alone while the others
 * in its group land, and every run's history is complete and in order.
 */
import pg from 'pg';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createKernel, defineTool, isDualloopError, postgresStore, type PostgresStore } from 'dualloop';
import { scriptedModel, type ScriptStep } from 'dualloop/testing';
import { postgresUrl, sql, useSchemas } from '../support/postgres.js';
import { runRecord, toolResult } from './builders.js';

const schema = useSchemas('group');
const opened: PostgresStore[] = [];
afterAll(async () => {
  for (const store of opened) await store.close();
});
const open = (name: string, groupCommit?: boolean) => {
  const store = postgresStore({ connectionString: postgresUrl() }, { schema: name, maxConnections: 6, ...(groupCommit === undefined ? {} : { groupCommit }) });
  opened.push(store);
  return store;
};
const transactions = async (name: string, table: string) => Number((await sql<{ n: string }>(`SELECT count(DISTINCT xmin::text) AS n FROM "${name}".${table}`))[0]!.n);

/** Creates the runs and takes each one's lease as `worker-a`: the fence token of each. */
async function leasedRuns(store: PostgresStore, runs: readonly string[]): Promise<Map<string, number>> {
  const tokens = new Map<string, number>();
  for (const runId of runs) {
    await store.createRun(runRecord(runId));
    const lease = await store.acquireLease(runId, 'worker-a', 30_000);
    if (!lease.acquired) throw new Error('expected the lease');
    tokens.set(runId, lease.token);
  }
  return tokens;
}

describe('postgresStore group commit', () => {
  it('commits the writes of runs arriving at once in few transactions; a fenced-out run is refused alone', async () => {
    const name = schema();
    const store = open(name);
    const heirStore = open(name);
    const runs = Array.from({ length: 30 }, (_, index) => `run-${index}`);
    const tokens = await leasedRuns(store, runs);
    // Another process took run-7 over: worker-a's token for it is stale.
    expect(await heirStore.acquireLease('run-7', 'worker-b', 30_000, { takeOverFrom: 'worker-a' })).toMatchObject({ acquired: true });

    const outcomes = await Promise.allSettled(runs.map((runId) => store.recordToolResult(runId, toolResult(`call-${runId}`), tokens.get(runId))));
    const refused = outcomes.flatMap((outcome, index) => (outcome.status === 'rejected' ? [[runs[index], isDualloopError(outcome.reason, 'lease_lost')]] : []));
    expect(refused).toEqual([['run-7', true]]);
    for (const runId of runs) {
      const stored = await heirStore.getToolResult(runId, `call-${runId}`);
      if (runId === 'run-7') expect(stored).toBeUndefined();
      else expect(stored).toMatchObject({ toolCallId: `call-${runId}` });
    }
    // 29 rows, written by a handful of transactions: the first writes alone, the rest in groups.
    expect(await transactions(name, 'tool_results')).toBeLessThanOrEqual(8);
  });

  it('groupCommit: false commits every write on its own', async () => {
    const name = schema();
    const store = open(name, false);
    const runs = Array.from({ length: 12 }, (_, index) => `alone-${index}`);
    for (const runId of runs) await store.createRun(runRecord(runId));
    await Promise.all(runs.map((runId) => store.recordToolResult(runId, toolResult(`call-${runId}`))));
    expect(await transactions(name, 'tool_results')).toBe(12);
    expect(() => postgresStore({ connectionString: postgresUrl() }, { groupCommit: 'yes' as never })).toThrow(/groupCommit: must be true or false/);
  });

  it('a group whose connection is cut is rolled back and each write made again alone: every write lands once', async () => {
    const name = schema();
    const store = open(name);
    const runs = Array.from({ length: 10 }, (_, index) => `cut-${index}`);
    const tokens = await leasedRuns(store, runs);
    // Hold the last run's lease row: its fence check waits, and with it the group it is in.
    const holder = new pg.Client({ connectionString: postgresUrl() });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query(`SELECT 1 FROM "${name}".leases l JOIN "${name}".runs r ON r.id = l.run WHERE r.run_id = $1 FOR UPDATE OF l`, ['cut-9']);
      const writes = Promise.allSettled(runs.map((runId) => store.recordToolResult(runId, toolResult(`call-${runId}`), tokens.get(runId))));
      let waiting: { pid: number }[] = [];
      for (let tries = 0; tries < 100 && waiting.length === 0; tries += 1) {
        await sleep(50);
        waiting = (await holder.query(`SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database() AND query LIKE '%${name}%tool_results%'`)).rows as { pid: number }[];
      }
      expect(waiting).toHaveLength(1);
      await holder.query('SELECT pg_terminate_backend($1)', [waiting[0]!.pid]);
      await holder.query('COMMIT');
      const outcomes = await writes;
      expect(outcomes.map((outcome) => outcome.status)).toEqual(runs.map(() => 'fulfilled'));
    } finally {
      await holder.end();
    }
    const rows = await sql<{ run_id: string; n: string }>(`SELECT r.run_id, count(*) AS n FROM "${name}".tool_results t JOIN "${name}".runs r ON r.id = t.run GROUP BY r.run_id ORDER BY r.run_id`);
    expect(rows.map((row) => [row.run_id, Number(row.n)])).toEqual([...runs].sort().map((runId) => [runId, 1]));
  });

  it('runs many kernels at once to the end with every checkpoint and event, in fewer transactions than turns', async () => {
    const name = schema();
    const store = open(name);
    const note = defineTool({ name: 'note', description: 'Notes a line.', parameters: z.object({ line: z.string() }), execute: ({ line }) => `noted ${line}` });
    // Four tool turns, then the answer: five turns per run.
    const model = scriptedModel((call): ScriptStep => (call.turn! <= 4 ? { toolCalls: [{ name: 'note', args: { line: `turn ${call.turn}` } }] } : { text: 'done' }));
    const kernel = createKernel({ model, tools: [note], store });
    const runs = Array.from({ length: 40 }, (_, index) => `kernel-run-${index}`);
    const results = await Promise.all(runs.map((runId) => kernel.start(['Take notes'], { runId }).result));
    expect(results.map((result) => result.stop.reason)).toEqual(runs.map(() => 'goal_achieved'));
    for (const runId of runs.slice(0, 5)) {
      const audit = await store.audit(runId);
      expect(audit?.workflow.metrics.turns).toBe(5);
      const events = await store.readEvents(runId);
      expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
      expect((await store.listCheckpoints(runId)).length).toBeGreaterThanOrEqual(5);
    }
    const turns = runs.length * 5;
    const checkpoints = Number((await sql<{ n: string }>(`SELECT count(*) AS n FROM "${name}".checkpoint_entries`))[0]!.n);
    expect(checkpoints).toBeGreaterThanOrEqual(turns);
    // Without grouping every checkpoint is a transaction of its own.
    expect(await transactions(name, 'checkpoint_entries')).toBeLessThan(checkpoints * 0.9);
  });
});
