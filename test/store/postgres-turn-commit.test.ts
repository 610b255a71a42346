/**
 * One commit per turn on Postgres: a turn's events, its tool results and its checkpoint go in one
 * statement (each row's `xmin` names the transaction that wrote it) — and still, a tool never
 * starts while an earlier call's result is uncommitted.
 */
import pg from 'pg';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createKernel, defineTool, postgresStore, type PostgresStore } from 'dualloop';
import { scriptedModel, type ScriptStep } from 'dualloop/testing';
import { postgresUrl, sql, useSchemas } from '../support/postgres.js';

const schema = useSchemas('turn');
const opened: PostgresStore[] = [];
afterAll(async () => {
  for (const store of opened) await store.close();
});
const open = (name: string) => {
  const store = postgresStore({ connectionString: postgresUrl() }, { schema: name });
  opened.push(store);
  return store;
};

/** The transaction ids of a table's rows, by a column. */
const xminBy = async (name: string, table: string, column: string) =>
  new Map((await sql<{ key: string; tx: string }>(`SELECT ${column}::text AS key, xmin::text AS tx FROM "${name}".${table}`)).map((row) => [row.key, row.tx]));

describe('postgresStore: one commit per turn', () => {
  it('a tool turn commits its events, its tool result and its checkpoint together', async () => {
    const name = schema();
    const store = open(name);
    const TURNS = 6;
    const add = defineTool({ name: 'add', description: 'Adds.', parameters: z.object({ a: z.number(), b: z.number() }), execute: ({ a, b }) => String(a + b) });
    const script: ScriptStep[] = [...Array.from({ length: TURNS }, (_, turn) => ({ toolCalls: [{ name: 'add', args: { a: turn, b: 1 }, id: `call-${turn}` }] })), { text: 'done' }];
    const kernel = createKernel({ model: scriptedModel(script), tools: [add], store });
    const result = await kernel.start(['sum'], { runId: 'turns' }).result;
    expect(result.stop.reason).toBe('goal_achieved');

    // Each call's result was committed by the transaction that committed its turn's checkpoint.
    const results = await xminBy(name, 'tool_results', 'tool_call_id');
    const entries = await sql<{ turn: number; tx: string }>(`SELECT turn, xmin::text AS tx FROM "${name}".checkpoint_entries WHERE turn IS NOT NULL ORDER BY sequence`);
    expect(results.size).toBe(TURNS);
    for (let turn = 0; turn < TURNS; turn += 1) {
      const entry = entries.find((row) => row.turn === turn + 1);
      expect(results.get(`call-${turn}`), `call-${turn}`).toBe(entry?.tx);
    }
    // Every row the run wrote, in about one transaction per checkpoint: the events ride along.
    const all = await sql<{ n: string }>(
      `SELECT count(DISTINCT tx) AS n FROM (SELECT xmin::text AS tx FROM "${name}".events UNION ALL SELECT xmin::text FROM "${name}".tool_results
         UNION ALL SELECT xmin::text FROM "${name}".checkpoint_entries UNION ALL SELECT xmin::text FROM "${name}".results) AS rows`,
    );
    const checkpoints = Number((await sql<{ n: string }>(`SELECT count(*) AS n FROM "${name}".checkpoint_entries`))[0]!.n);
    expect(Number(all[0]!.n)).toBeLessThanOrEqual(checkpoints + 2);
  });

  it('a tool starts only once the result of the call before it is committed, however slow that commit', async () => {
    const name = schema();
    const store = open(name);
    const seen: { call: string; committedBefore: string[] }[] = [];
    const committed = async () => (await sql<{ id: string }>(`SELECT tool_call_id AS id FROM "${name}".tool_results ORDER BY tool_call_id`)).map((row) => row.id);
    // Call a holds the run's lease row for a while once it ran: the statement that records its
    // result (fenced: it reads that row) waits until the row is let go.
    const holder = new pg.Client({ connectionString: postgresUrl() });
    await holder.connect();
    let released: Promise<unknown> = Promise.resolve();
    const step = defineTool({
      name: 'step',
      description: 'One step of a chain.',
      parameters: z.object({ call: z.string() }),
      execute: async ({ call }) => {
        seen.push({ call, committedBefore: await committed() });
        if (call === 'a') {
          await holder.query('BEGIN');
          await holder.query(`SELECT 1 FROM "${name}".leases FOR UPDATE`);
          released = sleep(300).then(() => holder.query('ROLLBACK'));
        }
        return `did ${call}`;
      },
    });
    const calls = ['a', 'b', 'c'].map((call) => ({ name: 'step', args: { call }, id: `call-${call}` }));
    const kernel = createKernel({ model: scriptedModel([{ toolCalls: calls }, { toolCalls: [{ name: 'step', args: { call: 'd' }, id: 'call-d' }] }, { text: 'done' }]), tools: [step], store, toolExecution: 'sequential' });
    try {
      expect((await kernel.start(['chain'], { runId: 'chain' }).result).stop.reason).toBe('goal_achieved');
    } finally {
      await released;
      await holder.end();
    }
    expect(seen).toEqual([
      { call: 'a', committedBefore: [] },
      { call: 'b', committedBefore: ['call-a'] },
      { call: 'c', committedBefore: ['call-a', 'call-b'] },
      { call: 'd', committedBefore: ['call-a', 'call-b', 'call-c'] },
    ]);
  });
});
