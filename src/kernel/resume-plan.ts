import { finishedTasks } from '../audit/build-audit.js';
import { RESUMABLE_REASONS, isResumableStop } from '../contracts/stop-rules.js';
import { rebuiltOrThrow } from '../checkpoint/read-checkpoint.js';
import type { KernelEvent } from '../contracts/events.js';
import type { ApprovalAnswer } from '../contracts/policy.js';
import { clearQueue, enqueue, type MessageQueues } from '../contracts/queues.js';
import type { WorkflowProgress } from '../contracts/workflow-protocol.js';
import { RunError } from '../errors.js';
import { refuseDamagedHistory } from '../checkpoint/history-damage.js';
import type { WorkflowResult } from '../contracts/results.js';
import type { RunRecord } from '../contracts/store.js';
import type { KernelDeps } from './kernel-deps.js';
import type { WorkflowFingerprint } from '../contracts/fingerprint.js';
import { fingerprintChanges } from './fingerprint-changes.js';
import { RunFence } from './fenced-store.js';
import { acquireRunLease, heldError } from './run-lease.js';
import type { LaunchPlan } from './launch-run.js';
import { resumeApprovals } from './resume-approvals.js';


/**
 * Queue changes made after the checkpoint, replayed from the event log: a message queued (or a
 * queue cleared) just before a crash is not lost. Messages already delivered in the turns after
 * the checkpoint are delivered again, since those turns run again.
 */
function replayQueueEvents(queues: MessageQueues, events: readonly KernelEvent[]): MessageQueues {
  let replayed = queues;
  for (const event of events) {
    if (event.type === 'message_queued') replayed = enqueue(replayed, event.queue, { id: event.id, content: event.content, ...(event.taskId === undefined ? {} : { taskId: event.taskId }) });
    else if (event.type === 'queue_cleared') replayed = clearQueue(replayed, event.queue);
  }
  return replayed;
}

function lastTraceParent(events: readonly KernelEvent[]): string | undefined {
  for (let index = events.length - 1; index >= 0; index -= 1) {
    const event = events[index]!;
    if (event.type === 'workflow_start' && event.traceParent !== undefined) return event.traceParent;
  }
  return undefined;
}

type ResumePlan = Omit<LaunchPlan, 'progress' | 'holder'> & { readonly progress: WorkflowProgress | undefined };

/** What a resume is asked with. */
export interface ResumeRequest {
  readonly signal?: AbortSignal;
  readonly approvals?: Readonly<Record<string, ApprovalAnswer>>;
  /** Continue although the workflow changed since the run started (a `workflow_changed` event records it). */
  readonly acceptChange?: boolean;
}
type ProgressPlan = Omit<ResumePlan, 'fence'>;

/**
 * Reads what a resume continues from and refuses, with a RunError naming the run and the
 * problem, anything that would silently restart it: an unknown run, a finished run, a corrupt
 * or future-version checkpoint.
 */
export async function loadResumePlan(
  deps: KernelDeps,
  runId: string,
  workflow: { readonly digest: string; readonly fingerprint: WorkflowFingerprint },
  holder: string,
  options: ResumeRequest,
): Promise<ResumePlan> {
  const { store } = deps;
  const record = await store.getRun(runId);
  if (record === undefined) {
    throw new RunError({ code: 'run_not_found', runId, message: `run ${runId} does not exist in the ${store.kind} store` });
  }
  const finished = await store.loadResult(runId);
  if (finished !== undefined && !isResumableStop(finished.stop.reason)) {
    throw new RunError({
      code: 'run_finished',
      runId,
      message: `run ${runId} already finished with ${finished.stop.reason} (${finished.stop.detail}); only runs stopped by ${[...RESUMABLE_REASONS].join(', ')} or by a crash can be resumed`,
    });
  }
  // A changed workflow is refused before anything is taken (DESIGN §15), unless accepted.
  const changes = record.fingerprint === undefined ? [] : fingerprintChanges(record.fingerprint, workflow.fingerprint);
  if (changes.length > 0 && options.acceptChange !== true) throw workflowChanged(runId, changes);
  // Checked before the lease is taken: invalid answers leave the run as it was.
  const approvals = await resumeApprovals(deps, runId, options.approvals);
  const askedAt = performance.now();
  const lease = await acquireRunLease(store, runId, holder, deps.loop.leaseMs);
  if (!lease.acquired) throw heldError(runId, lease);
  const fence = new RunFence(runId, askedAt);
  fence.set(lease.token);
  try {
    const plan = await readProgress(deps, runId, record, finished, workflow.digest, { ...(options.signal === undefined ? {} : { signal: options.signal }), approvals });
    if (changes.length === 0) return { ...plan, fence };
    await store.updateFingerprint?.(runId, workflow.fingerprint, lease.token);
    return { ...plan, fence, accepted: { changes, by: holder } };
  } catch (error) {
    await store.releaseLease(runId, holder);
    throw error;
  }
}

/** RunError `workflow_changed`, listing each change and how to go on. */
export function workflowChanged(runId: string, changes: readonly string[]): RunError {
  return new RunError({
    code: 'workflow_changed',
    runId,
    message: `run ${runId} was started with another workflow: ${changes.join('; ')}. Resume it with acceptChange: true (dualloop resume --accept-workflow-change) to go on with this one, or run the workflow it was started with`,
  });
}

async function readProgress(
  deps: KernelDeps,
  runId: string,
  record: RunRecord,
  finished: WorkflowResult | undefined,
  digest: string,
  options: { readonly signal?: AbortSignal; readonly approvals: ReadonlyMap<string, ApprovalAnswer> },
): Promise<ProgressPlan> {
  const { store } = deps;
  const checkpoint = rebuiltOrThrow(await store.loadCheckpoint(runId), runId);
  const eventSeq = checkpoint?.view.eventSeq ?? 0;
  const later = await store.readEvents(runId, eventSeq);
  const lastEventSeq = later.length === 0 ? eventSeq : later[later.length - 1]!.seq;
  // Without a checkpoint `later` is the whole log.
  refuseDamagedHistory({
    runId,
    storeKind: store.kind,
    tasksDone: finished === undefined ? 0 : finishedTasks(finished),
    checkpointSequence: checkpoint?.view.sequence,
    hasEvents: later.length > 0,
    savedCheckpoints: later.filter((event) => event.type === 'checkpoint_saved'),
  });
  const saved = checkpoint?.view.progress;
  // Only a traced resume reads the whole log, for the trace context its last segment saved.
  const previousTraceParent = deps.events.tracing?.active() === true ? lastTraceParent(await store.readEvents(runId, 0)) : undefined;
  const progress = saved === undefined ? undefined : { ...saved, queues: replayQueueEvents(saved.queues, later) };
  return {
    runId,
    tasks: record.tasks,
    progress,
    resumed: true,
    approvals: options.approvals,
    lastEventSeq,
    ...(checkpoint === undefined ? {} : { checkpoint }),
    signal: options.signal,
    ...(previousTraceParent === undefined ? {} : { previousTraceParent }),
    // A run recorded before fingerprints: only its options digest can be compared.
    warnings:
      record.fingerprint !== undefined || record.optionsDigest === digest
        ? []
        : [`run ${runId} was started with different options (digest ${record.optionsDigest.slice(0, 12)}…, now ${digest.slice(0, 12)}…); resuming anyway`],
  };
}
