/**
 * Poison runs (ADR/0202): a slice that keeps crashing its worker (the process dies, or the slice
 * throws) is retried by pg-boss `retryLimit` times with backoff, then moved to the dead-letter
 * queue. Whichever worker takes it from there ends the run for good: `error` / detail
 * `worker_retries_exhausted`, explained by an `error` event (scope `worker`), with the results
 * of its last checkpoint, so that `dualloop runs` and the audit show why it stopped.
 */
import { readCheckpoint } from '../checkpoint/read-checkpoint.js';
import { DEFAULT_BOUNDS } from '../contracts/bounds.js';
import type { KernelEvent } from '../contracts/events.js';
import type { WorkflowResult } from '../contracts/results.js';
import type { CheckpointStore } from '../contracts/store.js';
import { EMPTY_PROGRESS } from '../contracts/workflow-protocol.js';
import { RunError } from '../errors.js';
import { acquireRunLease } from '../kernel/run-lease.js';
import { normalizeTasks } from '../kernel/tasks.js';
import { SliceData } from './run-queue.js';
import { sliceContinues } from './slice-stops.js';

export const RETRIES_EXHAUSTED = 'worker_retries_exhausted' as const;

export interface DeadSlice {
  readonly data: unknown;
  /** Retries the slice used before it was dead-lettered (pg-boss `sourceRetryCount`). */
  readonly sourceRetryCount?: number | null;
}

/**
 * Ends the dead-lettered run. Throws while another process still holds its lease (the dead-letter
 * job is retried later); a run that already ended is left as it is.
 */
export async function endDeadLetteredRun(store: CheckpointStore, slice: DeadSlice, holder: string, leaseMs: number): Promise<WorkflowResult | undefined> {
  const data = SliceData().parse(slice.data) as SliceData;
  const attempts = (slice.sourceRetryCount ?? 0) + 1;
  const why = `run ${data.runId} (workflow ${data.workflow}): ${attempts} slice${attempts === 1 ? '' : 's'} in a row crashed the worker running ${attempts === 1 ? 'it' : 'them'}; moved to the dead-letter queue`;
  return endRunForGood(store, data, holder, leaseMs, { code: RETRIES_EXHAUSTED, detail: RETRIES_EXHAUSTED, message: why });
}

/**
 * Ends a run no worker will take up (a poison run; a run whose workflow changed since it started,
 * ADR/0478): `error` with `code`, explained by an `error` event (scope `worker`), with the results
 * of its last checkpoint. Throws while another process still holds its lease; a run that already
 * ended is left as it is.
 */
export async function endRunForGood(
  store: CheckpointStore,
  data: SliceData,
  holder: string,
  leaseMs: number,
  why: { readonly code: typeof RETRIES_EXHAUSTED | 'workflow_changed'; readonly detail: string; readonly message: string },
): Promise<WorkflowResult | undefined> {
  const { runId } = data;
  if ((await store.getRun(runId)) === undefined) {
    // It crashed before its first slice recorded it: recorded now, so that it is listed and audited.
    const tasks = normalizeTasks(data.tasks ?? [`(unknown tasks of workflow ${data.workflow})`], DEFAULT_BOUNDS);
    await store.createRun({ runId, name: data.workflow, optionsDigest: 'dead-lettered', tasks, createdAt: Date.now() });
  }
  const previous = await store.loadResult(runId);
  if (previous !== undefined && !sliceContinues(previous.stop)) return undefined;
  const lease = await acquireRunLease(store, runId, holder, leaseMs);
  if (!lease.acquired) throw new RunError({ code: 'run_held', runId, message: `run ${runId} is still held by ${lease.holder}; its dead-lettering is retried` });
  try {
    // A checkpoint that cannot be read ends the run all the same, with no results.
    const checkpoint = await readCheckpoint(store, runId).catch(() => undefined);
    const progress = checkpoint?.progress ?? EMPTY_PROGRESS;
    const after = checkpoint?.eventSeq ?? 0;
    const tail = await store.readEvents(runId, after);
    let seq = tail.length === 0 ? after : tail[tail.length - 1]!.seq;
    const at = Date.now();
    const stop = { reason: 'error' as const, code: why.code, detail: why.detail, at };
    const explained: KernelEvent = {
      type: 'error',
      scope: 'worker',
      code: why.code,
      message: why.message,
      runId,
      seq: (seq += 1),
      at,
    };
    const result: WorkflowResult = { runId, stop, tasks: progress.results, metrics: progress.metrics };
    const ended: KernelEvent = { type: 'workflow_end', stop, metrics: progress.metrics, runId, seq: (seq += 1), at };
    await store.appendEvent(explained, lease.token);
    await store.appendEvent(ended, lease.token);
    await store.saveResult(result, lease.token);
    return result;
  } finally {
    await store.releaseLease(runId, holder);
  }
}
