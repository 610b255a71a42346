/**
 * One job = one slice of a run (ADR/0200): take the run's fenced lease, start it or resume it from
 * its last checkpoint, and run it until it ends, parks or is handed back at a drain. Everything
 * the run must not do twice is already in the kernel: recorded tool results are replayed, and a
 * process that lost its lease gets no write through (ADR/0180).
 */
import type { PgBoss } from 'pg-boss';
import type { CheckpointStore } from '../contracts/store.js';
import { isDualloopError, RunError, StoreError, WorkerError } from '../errors.js';
import { endRunForGood } from './dead-letter.js';
import { createKernel } from '../kernel/create-kernel.js';
import { suspendRun } from '../kernel/run-suspension.js';
import type { WorkflowRun } from '../kernel/workflow-run.js';
import { sendSlice, SliceData } from './run-queue.js';
import { endedByTheStore, sliceContinues } from './slice-stops.js';
import type { SliceReport, WorkerSettings } from './worker-settings.js';

/** A slice in flight, as the worker's drain sees it. */
export interface SliceHandle {
  /** Hands the run back: at its next turn boundary, or as soon as no tool call is in flight. */
  suspend(atTurnBoundary: boolean): void;
}

export interface SliceContext {
  readonly settings: WorkerSettings;
  readonly store: CheckpointStore;
  readonly boss: PgBoss;
  /** Registers a running slice for `stop()`; returns its unregistration. */
  readonly track: (handle: SliceHandle) => () => void;
}

/** The job as pg-boss hands it over (`includeMetadata`), reduced to what a slice reads. */
export interface SliceJob {
  readonly data: unknown;
  readonly priority?: number;
}

/**
 * Runs one slice and says how it ended. Throws (and so fails the job, which pg-boss retries and,
 * past `retryLimit`, dead-letters) when the slice could not run at all — invalid job data, a
 * workflow builder or kernel options that throw, a store that cannot be read — and when the run
 * ended `error` because its store failed under it (ADR/0321): the retry resumes it from its last
 * checkpoint once the database is back.
 */
export async function runSlice(context: SliceContext, job: SliceJob): Promise<SliceReport> {
  const data = SliceData().parse(job.data) as SliceData;
  const { settings, store } = context;
  const report = (outcome: SliceReport['outcome'], stop?: SliceReport['stop']): SliceReport => ({
    runId: data.runId,
    workflow: data.workflow,
    workerId: settings.workerId,
    outcome,
    ...(stop === undefined ? {} : { stop: { reason: stop.reason, detail: stop.detail } }),
  });
  const build = settings.workflows[data.workflow];
  if (build === undefined) throw new WorkerError({ code: 'workflow_unknown', workerId: settings.workerId, message: `this worker has no workflow "${data.workflow}"` });

  const existing = await store.getRun(data.runId);
  if (existing !== undefined) {
    const result = await store.loadResult(data.runId);
    // Only a crashed, drained, parked or store-failed run goes on: a run that ended (cancelled
    // from another process included) is not restarted by a stray or duplicate slice.
    if (result !== undefined && !sliceContinues(result.stop)) return report('finished', result.stop);
  } else if (data.tasks === undefined) {
    throw new RunError({ code: 'run_not_found', runId: data.runId, message: `run ${data.runId} does not exist and its slice carries no tasks` });
  }

  const options = await build({ workflow: data.workflow, runId: data.runId, workerId: settings.workerId });
  const kernel = createKernel({ ...options, store, leaseMs: settings.leaseMs });
  let run: WorkflowRun;
  try {
    run = existing === undefined ? kernel.start(data.tasks, { runId: data.runId }) : await kernel.resume(data.runId);
  } catch (error) {
    if (isDualloopError(error, 'run_held')) {
      // Another process holds the run (a drained worker releasing it, a dead one's lease running
      // out): try again later instead of spending a retry.
      await sendSlice(context.boss, data, { ...priorityOf(job), startAfterSeconds: Math.min(Math.ceil(settings.leaseMs / 1000), 2) });
      return report('held');
    }
    if (isDualloopError(error, 'run_finished')) return report('finished');
    if (isDualloopError(error, 'workflow_changed')) {
      // Deployed code no longer matches the run: retrying cannot help. It ends `error` (resumable)
      // with what changed, for an operator to resume it with the change accepted (ADR/0478).
      const message = (error as Error).message;
      const ended = await endRunForGood(store, data, settings.workerId, settings.leaseMs, { code: 'workflow_changed', detail: message, message });
      return report('ended', ended?.stop);
    }
    throw error;
  }

  let suspension: Promise<boolean> | undefined;
  const untrack = context.track({
    suspend(atTurnBoundary) {
      suspension = suspendRun(run, { atTurnBoundary });
    },
  });
  try {
    for await (const _event of run) {
      // Consumed so that the run's stream keeps nothing; the store has the events.
    }
    const result = await run.result;
    if (suspension !== undefined && (await suspension)) {
      // The lease is released: the next slice may start on any worker.
      await sendSlice(context.boss, { workflow: data.workflow, runId: data.runId }, priorityOf(job));
      return report('suspended');
    }
    if (result.stop.reason === 'error' && result.stop.detail === 'lease_lost') {
      // This worker was paused past the run's lease (ADR/0324). Another worker may hold the run
      // now — or nobody, when the lease merely ran out: a next slice settles which (it resumes a
      // free run, waits for a held one, leaves an ended one), so no run is left without a slice.
      await sendSlice(context.boss, { workflow: data.workflow, runId: data.runId }, priorityOf(job));
      return report('lease_lost', result.stop);
    }
    if (endedByTheStore(result.stop)) {
      throw new StoreError({ code: 'store_failed', path: `postgres schema ${settings.schema}`, runId: data.runId, message: `run ${data.runId} ended ${result.stop.code}: ${result.stop.detail}; its slice is retried` });
    }
    return report('ended', result.stop);
  } finally {
    untrack();
  }
}

function priorityOf(job: SliceJob): { priority?: number } {
  return job.priority === undefined || job.priority === 0 ? {} : { priority: job.priority };
}
