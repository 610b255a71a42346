/**
 * What a run submitted to workers needs for its next slice (ADR/0204): its workflow, tasks and
 * priority, in the store's `submissions` table (Postgres schema version 3). `submitRun` writes the
 * row before it queues the first slice; `dualloop approve` reads it to queue the slice after an
 * approval. pg-boss deletes a finished job after its retention (7 days by default): a run parked
 * longer than that is still found here, for as long as the run is kept.
 */
import type { Pool } from 'pg';
import { z } from 'zod';
import { describePostgresFailure } from '../checkpoint/postgres/postgres-failure.js';
import type { PostgresStore } from '../checkpoint/postgres/postgres-store.js';
import { quoteIdentifier } from '../checkpoint/postgres/postgres-schema.js';
import { lazySchema } from '../contracts/lazy-schema.js';
import { TaskInputSchema, type TaskInput } from '../kernel/tasks.js';
import type { QueuePlacement } from './worker-settings.js';

export interface Submission {
  readonly workflow: string;
  readonly tasks: readonly TaskInput[];
  readonly priority?: number;
}

export interface Submissions {
  /** The store on the same connection, migrated (so the table exists). */
  readonly store: PostgresStore;
  /** Records a new run's submission; a run id submitted before keeps its first record. */
  record(runId: string, submission: Submission): Promise<void>;
  /** The run's submission, or undefined when it was never submitted to workers. */
  find(runId: string): Promise<Submission | undefined>;
  close(): Promise<void>;
}

const StoredTasks = lazySchema(() => z.array(TaskInputSchema()));

/** Opens the store of `place` (creating or migrating its schema) and its submissions table. */
export async function openSubmissions(place: Pick<QueuePlacement, 'connectionString' | 'schema'>): Promise<Submissions> {
  const [{ default: pg }, { postgresStore }] = await Promise.all([import('pg'), import('../checkpoint/postgres/postgres-store.js')]);
  const pool: Pool = new pg.Pool({ connectionString: place.connectionString, max: 2 });
  // Idle connections that the server drops must not crash the process (the pool reconnects).
  pool.on('error', () => undefined);
  const store = postgresStore({ pool }, { schema: place.schema });
  try {
    await store.ready();
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw error;
  }
  const table = `${quoteIdentifier(place.schema)}.submissions`;
  const failed = (operation: string, runId: string) => (error: unknown) => {
    throw describePostgresFailure(error, { where: store.where, operation, runId });
  };
  return {
    store,
    async record(runId, submission) {
      await pool.query(`INSERT INTO ${table} (run_id, workflow, tasks, priority, submitted_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (run_id) DO NOTHING`, [
        runId,
        submission.workflow,
        JSON.stringify(submission.tasks),
        submission.priority ?? null,
        Date.now(),
      ]).catch(failed('recording the submission', runId));
    },
    async find(runId) {
      const { rows } = await pool.query<{ workflow: string; tasks: string; priority: number | null }>(`SELECT workflow, tasks, priority FROM ${table} WHERE run_id = $1`, [runId]).catch(failed('reading the submission', runId));
      const row = rows[0];
      if (row === undefined) return undefined;
      // The tasks are informative here (the run record holds the ones that ran): unreadable ones are left out.
      let tasks: readonly TaskInput[] = [];
      try {
        const parsed = StoredTasks().safeParse(JSON.parse(row.tasks));
        if (parsed.success) tasks = parsed.data as readonly TaskInput[];
      } catch {
        // kept empty
      }
      return { workflow: row.workflow, tasks, ...(row.priority === null ? {} : { priority: Number(row.priority) }) };
    },
    async close() {
      await store.close();
      await pool.end();
    },
  };
}
