import { randomUUID } from 'node:crypto';
import { RunError } from '../errors.js';
import { DEFAULT_QUEUE_POLICY, ensureQueue, openBoss, sendSlice } from './run-queue.js';
import { resolveSubmitOptions, type SubmitRunOptions } from './worker-settings.js';

export interface SubmittedRun {
  readonly runId: string;
  /** False when a slice of this run was already waiting in the queue (a duplicate submission): it still runs once. */
  readonly queued: boolean;
}

/**
 * Puts a run on its workflow's queue (DESIGN.md §10, ADR/0200): some worker that knows the
 * workflow runs it, slice by slice, exactly once. Without `tasks`, queues the next slice of an
 * existing run (a parked run after its approval; RunError `run_not_found` when there is none); a
 * finished run is not run again. Throws ConfigError on invalid options, before touching the database.
 */
export async function submitRun(options: SubmitRunOptions): Promise<SubmittedRun> {
  const settings = resolveSubmitOptions(options);
  const runId = settings.runId ?? `run-${randomUUID()}`;
  if (settings.tasks === undefined) await requireExistingRun(settings, runId);
  const boss = await openBoss(settings, { supervise: false });
  try {
    await ensureQueue(boss, settings.workflow, DEFAULT_QUEUE_POLICY, false);
    const queued = await sendSlice(
      boss,
      { workflow: settings.workflow, runId, ...(settings.tasks === undefined ? {} : { tasks: settings.tasks }) },
      settings.priority === undefined ? {} : { priority: settings.priority },
    );
    return { runId, queued };
  } finally {
    await boss.stop({ graceful: false });
  }
}

async function requireExistingRun(settings: { connectionString: string; schema: string }, runId: string): Promise<void> {
  const { postgresStore } = await import('../checkpoint/postgres-store.js');
  const store = postgresStore({ connectionString: settings.connectionString }, { schema: settings.schema });
  try {
    if ((await store.getRun(runId)) !== undefined) return;
  } finally {
    await store.close();
  }
  throw new RunError({ code: 'run_not_found', runId, message: `run ${runId} does not exist in postgres schema ${settings.schema}: a new run needs its tasks` });
}
