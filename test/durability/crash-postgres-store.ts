// The crash tests' view of a run kept in Postgres: one schema per work dir, read back directly.
import { basename } from 'node:path';
import pg from 'pg';
import type { KernelEvent } from 'dualloop';
import type { CrashStore, StoredState } from './crash-harness.js';

export function schemaOf(workDir: string): string {
  return `crash_${basename(workDir).replace(/[^A-Za-z0-9]/g, '_').toLowerCase()}`;
}

export function postgresCrashStore(url: string): CrashStore {
  return {
    name: 'postgresStore',
    env: (workDir) => ({ DUALLOOP_CRASH_PG_URL: url, DUALLOOP_CRASH_PG_SCHEMA: schemaOf(workDir) }),
    state: async (workDir) => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      const s = `"${schemaOf(workDir)}"`;
      try {
        const exists = await client.query(`SELECT 1 FROM pg_tables WHERE schemaname = $1 AND tablename = 'events'`, [schemaOf(workDir)]);
        if (exists.rows.length === 0) return { events: [], toolCallIds: [], checkpoint: undefined };
        const events = (await client.query<{ body: string }>(`SELECT body FROM ${s}.events ORDER BY run, seq`)).rows.map((row) => JSON.parse(row.body) as KernelEvent);
        const toolCallIds = (await client.query<{ tool_call_id: string }>(`SELECT tool_call_id FROM ${s}.tool_results ORDER BY tool_call_id`)).rows.map((row) => row.tool_call_id);
        const latest = (await client.query<{ sequence: number; event_seq: number; tasks_done: number; run: string; body: string }>(
          `SELECT sequence, event_seq, tasks_done, run, body FROM ${s}.checkpoint_entries ORDER BY sequence DESC LIMIT 1`,
        )).rows[0];
        if (latest === undefined) return { events, toolCallIds, checkpoint: undefined };
        const finished = await client.query<{ task_id: string }>(`SELECT task_id FROM ${s}.checkpoint_results WHERE run = $1 AND position < $2 ORDER BY position`, [latest.run, latest.tasks_done]);
        const body = JSON.parse(latest.body) as { change: { modelCallIndex: number } };
        const state: StoredState = {
          events,
          toolCallIds,
          checkpoint: { sequence: latest.sequence, eventSeq: latest.event_seq, modelCallIndex: body.change.modelCallIndex, finishedTasks: finished.rows.map((row) => row.task_id) },
        };
        return state;
      } finally {
        await client.end();
      }
    },
  };
}

/** Drops the work dirs' schemas. */
export async function dropSchemas(url: string, workDirs: readonly string[]): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (const workDir of workDirs) await client.query(`DROP SCHEMA IF EXISTS "${schemaOf(workDir)}" CASCADE`);
  } finally {
    await client.end();
  }
}
