import { buildAudit, finishedTasks } from '../audit/build-audit.js';
import { isResumableStop } from '../contracts/stop-rules.js';
import type { KernelEvent } from '../contracts/events.js';
import type { WorkflowResult } from '../contracts/results.js';
import type { CheckpointEntry, StoredCheckpoints } from '../contracts/checkpoint.js';
import type { TaskResult } from '../contracts/results.js';
import type { LeaseResult, RunRecord, RunSummary } from '../contracts/store.js';
import type { ToolResult } from '../contracts/tool.js';
import { ConfigError } from '../errors.js';
import { indexEntry, resultsRefusal } from './history-rules.js';
import { rebuiltOrThrow } from './read-checkpoint.js';
import { checkpointOutOfOrder, eventOutOfOrder, fenceRefusal, leaseLost, runExists, runNotFound } from './run-refusals.js';
import type { SynchronousStore } from './synchronous-store.js';

export interface MemoryStoreOptions {
  /**
   * How many finished runs to keep (default 1000); beyond it the run that finished first is
   * dropped, so a long-lived process does not grow without end. Runs that are running, crashed or
   * stopped resumably (`awaiting_approval`, `context_canceled`, `error`, `max_session_runtime`)
   * are never dropped. `Infinity` keeps everything.
   */
  readonly maxFinishedRuns?: number;
}

interface RunEntry {
  record: RunRecord;
  /** The checkpoint history, in sequence order, and the committed task results by position. */
  readonly checkpoints: CheckpointEntry[];
  readonly results: TaskResult[];
  readonly toolResults: Map<string, ToolResult>;
  readonly events: KernelEvent[];
  result?: WorkflowResult;
  /** The lease; kept after a release (holder undefined) so that its token only grows. */
  lease?: { holder: string | undefined; token: number; expiresAt: number };
}

export const DEFAULT_MAX_FINISHED_RUNS = 1000;

export interface MemoryStore extends SynchronousStore {
  readonly kind: 'memory';
}

/**
 * The in-process store: everything in memory, nothing survives the process. Keeps references
 * (the kernel never mutates what it hands over), so a checkpoint after every turn costs next to
 * nothing; what it returns must be treated as read-only too.
 */
export function memoryStore(options: MemoryStoreOptions = {}): MemoryStore {
  const maxFinishedRuns = validateLimit(options.maxFinishedRuns);
  const runs = new Map<string, RunEntry>();
  /** Finished runs, oldest finish first (a Map keeps insertion order). */
  const finished = new Map<string, true>();

  const existing = (runId: string, operation: string, fence?: number): RunEntry => {
    const run = runs.get(runId);
    if (run === undefined) throw runNotFound(runId, 'the memory store', operation);
    // The store's clock is this process's: the memory store lives in it (ADR/0182).
    const refusal = fence === undefined ? undefined : fenceRefusal(fence, run.lease, Date.now());
    if (refusal !== undefined) throw leaseLost(runId, refusal);
    return run;
  };
  const retain = (runId: string, result: WorkflowResult) => {
    finished.delete(runId);
    if (isResumableStop(result.stop.reason)) return;
    finished.set(runId, true);
    for (const oldest of finished.keys()) {
      if (finished.size <= maxFinishedRuns) break;
      finished.delete(oldest);
      runs.delete(oldest);
    }
  };

  return {
    kind: 'memory',
    createRun(record) {
      if (runs.has(record.runId)) throw runExists(record.runId, 'the memory store');
      runs.set(record.runId, { record, checkpoints: [], results: [], toolResults: new Map(), events: [] });
    },
    getRun: (runId) => runs.get(runId)?.record,
    saveCheckpoint(entry, fence) {
      const run = existing(entry.runId, 'saveCheckpoint', fence);
      const last = run.checkpoints.length === 0 ? 0 : run.checkpoints[run.checkpoints.length - 1]!.sequence;
      if (!(entry.sequence > last)) throw checkpointOutOfOrder(entry.runId, `checkpoint #${entry.sequence} is not after the last one, #${last}`);
      const refusal = resultsRefusal(entry, run.results.length);
      if (refusal !== undefined) throw checkpointOutOfOrder(entry.runId, refusal);
      run.checkpoints.push(entry);
      for (const result of entry.results) run.results.push(result);
    },
    loadCheckpoint: (runId, at) => history(runs.get(runId), at?.sequence),
    listCheckpoints: (runId) => (runs.get(runId)?.checkpoints ?? []).map(indexEntry),
    recordToolResult(runId, result, fence) {
      existing(runId, 'recordToolResult', fence).toolResults.set(result.toolCallId, result);
    },
    getToolResult: (runId, toolCallId) => runs.get(runId)?.toolResults.get(toolCallId),
    appendEvent(event, fence) {
      const { events } = existing(event.runId, 'appendEvent', fence);
      const last = events.length === 0 ? 0 : events[events.length - 1]!.seq;
      if (!(event.seq > last)) throw eventOutOfOrder(event.runId, event.seq, last);
      events.push(event);
    },
    readEvents(runId, afterSeq = 0) {
      const events = runs.get(runId)?.events ?? [];
      if (afterSeq <= 0) return events.slice();
      // Seqs increase along the array: find the first one after `afterSeq` from the end.
      let start = events.length;
      while (start > 0 && events[start - 1]!.seq > afterSeq) start -= 1;
      return events.slice(start);
    },
    saveResult(result, fence) {
      existing(result.runId, 'saveResult', fence).result = result;
      retain(result.runId, result);
    },
    loadResult: (runId) => runs.get(runId)?.result,
    listRuns({ limit = 20 } = {}): RunSummary[] {
      // Newest first; among runs created at the same time, the one created last comes first.
      return [...runs.values()]
        .reverse()
        .sort((a, b) => b.record.createdAt - a.record.createdAt)
        .slice(0, limit)
        .map((run) => summarize(run));
    },
    acquireLease(runId, holder, ttlMs, options = {}): LeaseResult {
      const run = existing(runId, 'acquireLease');
      const now = Date.now();
      const lease = run.lease;
      const free = lease === undefined || lease.holder === undefined || lease.holder === holder || lease.expiresAt <= now || lease.holder === options.takeOverFrom;
      if (!free) return { acquired: false, holder: lease.holder ?? '', expiresAt: lease.expiresAt };
      const token = lease === undefined ? 1 : lease.holder === holder ? lease.token : lease.token + 1;
      run.lease = { holder, token, expiresAt: now + ttlMs };
      return { acquired: true, token, expiresAt: now + ttlMs };
    },
    updateFingerprint(runId, fingerprint, fence) {
      const run = existing(runId, 'updateFingerprint', fence);
      run.record = { ...run.record, fingerprint };
    },
    releaseLease(runId, holder) {
      const run = runs.get(runId);
      if (run?.lease?.holder === holder) run.lease = { holder: undefined, token: run.lease.token, expiresAt: 0 };
    },
    audit(runId) {
      const run = runs.get(runId);
      if (run === undefined) return undefined;
      const progress = run.result === undefined ? rebuiltOrThrow(history(run), runId)?.view.progress : undefined;
      return buildAudit({ record: run.record, result: run.result, progress, events: run.events, storeKind: 'memory', checkpointSequence: run.checkpoints.at(-1)?.sequence });
    },
  };
}

/** The entries from the latest snapshot at or before `sequence` (the latest entry by default) up to it. */
function history(run: RunEntry | undefined, sequence = Number.POSITIVE_INFINITY): StoredCheckpoints | undefined {
  const entries = run?.checkpoints ?? [];
  let end = entries.length;
  while (end > 0 && entries[end - 1]!.sequence > sequence) end -= 1;
  if (end === 0) return undefined;
  let start = end - 1;
  while (start > 0 && entries[start]!.snapshot === undefined) start -= 1;
  return { results: run!.results.slice(0, entries[end - 1]!.tasksDone), entries: entries.slice(start, end) };
}

function summarize(run: RunEntry): RunSummary {
  const tasksDone = run.result === undefined ? (run.checkpoints.at(-1)?.tasksDone ?? 0) : finishedTasks(run.result);
  return {
    runId: run.record.runId,
    ...(run.record.name === undefined ? {} : { name: run.record.name }),
    createdAt: run.record.createdAt,
    ...(run.record.forkOf === undefined ? {} : { forkOf: run.record.forkOf }),
    ...(run.record.parent === undefined ? {} : { parent: run.record.parent }),
    ...(run.record.evalOf === undefined ? {} : { evalOf: run.record.evalOf }),
    ...(run.result === undefined ? {} : { stop: run.result.stop }),
    tasksDone,
    tasksTotal: run.record.tasks.length,
  };
}

function validateLimit(value: number | undefined): number {
  if (value === undefined) return DEFAULT_MAX_FINISHED_RUNS;
  if (value === Number.POSITIVE_INFINITY || (Number.isInteger(value) && value >= 0)) return value;
  throw new ConfigError({ message: 'Invalid memoryStore options', issues: [{ path: 'maxFinishedRuns', message: 'must be a non-negative integer or Infinity' }] });
}
