import { buildAudit, finishedTasks, RESUMABLE_REASONS } from '../audit/build-audit.js';
import type { KernelEvent } from '../contracts/events.js';
import type { WorkflowResult } from '../contracts/results.js';
import type { CheckpointEnvelope, LeaseResult, RunRecord, RunSummary } from '../contracts/store.js';
import type { ToolResult } from '../contracts/tool.js';
import { ConfigError } from '../errors.js';
import { eventOutOfOrder, runExists, runNotFound } from './run-refusals.js';
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
  readonly record: RunRecord;
  checkpoint?: CheckpointEnvelope;
  readonly toolResults: Map<string, ToolResult>;
  readonly events: KernelEvent[];
  result?: WorkflowResult;
  lease?: { holder: string; expiresAt: number };
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

  const existing = (runId: string, operation: string): RunEntry => {
    const run = runs.get(runId);
    if (run === undefined) throw runNotFound(runId, 'the memory store', operation);
    return run;
  };
  const retain = (runId: string, result: WorkflowResult) => {
    finished.delete(runId);
    if (RESUMABLE_REASONS.has(result.stop.reason)) return;
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
      runs.set(record.runId, { record, toolResults: new Map(), events: [] });
    },
    getRun: (runId) => runs.get(runId)?.record,
    saveCheckpoint(envelope) {
      existing(envelope.runId, 'saveCheckpoint').checkpoint = envelope;
    },
    loadCheckpoint: (runId) => runs.get(runId)?.checkpoint,
    recordToolResult(runId, result) {
      existing(runId, 'recordToolResult').toolResults.set(result.toolCallId, result);
    },
    getToolResult: (runId, toolCallId) => runs.get(runId)?.toolResults.get(toolCallId),
    appendEvent(event) {
      const { events } = existing(event.runId, 'appendEvent');
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
    saveResult(result) {
      existing(result.runId, 'saveResult').result = result;
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
    acquireLease(runId, holder, ttlMs, now): LeaseResult {
      const run = existing(runId, 'acquireLease');
      const lease = run.lease;
      if (lease !== undefined && lease.holder !== holder && lease.expiresAt > now) {
        return { acquired: false, holder: lease.holder, expiresAt: lease.expiresAt };
      }
      run.lease = { holder, expiresAt: now + ttlMs };
      return { acquired: true };
    },
    releaseLease(runId, holder) {
      const run = runs.get(runId);
      if (run?.lease?.holder === holder) run.lease = undefined;
    },
    audit(runId) {
      const run = runs.get(runId);
      if (run === undefined) return undefined;
      return buildAudit({ record: run.record, result: run.result, progress: run.checkpoint?.progress, events: run.events });
    },
  };
}

function summarize(run: RunEntry): RunSummary {
  const tasksDone = run.result === undefined ? (run.checkpoint?.progress.results.length ?? 0) : finishedTasks(run.result);
  return {
    runId: run.record.runId,
    ...(run.record.name === undefined ? {} : { name: run.record.name }),
    createdAt: run.record.createdAt,
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
