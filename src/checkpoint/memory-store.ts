import { buildAudit } from '../audit/build-audit.js';
import type { KernelEvent } from '../contracts/events.js';
import type { WorkflowResult } from '../contracts/results.js';
import type { CheckpointEnvelope, CheckpointStore, LeaseResult, RunRecord, RunSummary } from '../contracts/store.js';
import type { ToolResult } from '../contracts/tool.js';

interface RunEntry {
  readonly record: RunRecord;
  checkpoint?: CheckpointEnvelope;
  readonly toolResults: Map<string, ToolResult>;
  readonly events: KernelEvent[];
  result?: WorkflowResult;
  lease?: { holder: string; expiresAt: number };
}

/**
 * The in-process store: everything in memory, nothing survives the process. Keeps references
 * (the kernel never mutates what it hands over), so a checkpoint after every turn costs next to nothing.
 */
export function memoryStore(): CheckpointStore {
  const runs = new Map<string, RunEntry>();
  const entry = (runId: string): RunEntry | undefined => runs.get(runId);

  return {
    kind: 'memory',
    createRun(record) {
      if (runs.has(record.runId)) throw new Error(`run ${record.runId} already exists`);
      runs.set(record.runId, { record, toolResults: new Map(), events: [] });
    },
    getRun: (runId) => entry(runId)?.record,
    saveCheckpoint(envelope) {
      const run = entry(envelope.runId);
      if (run === undefined) throw new Error(`run ${envelope.runId} does not exist`);
      run.checkpoint = envelope;
    },
    loadCheckpoint: (runId) => entry(runId)?.checkpoint,
    recordToolResult(runId, result) {
      entry(runId)?.toolResults.set(result.toolCallId, result);
    },
    getToolResult: (runId, toolCallId) => entry(runId)?.toolResults.get(toolCallId),
    appendEvent(event) {
      entry(event.runId)?.events.push(event);
    },
    readEvents(runId, afterSeq = 0) {
      const events = entry(runId)?.events ?? [];
      return afterSeq === 0 ? events.slice() : events.filter((event) => event.seq > afterSeq);
    },
    saveResult(result) {
      const run = entry(result.runId);
      if (run !== undefined) run.result = result;
    },
    loadResult: (runId) => entry(runId)?.result,
    listRuns({ limit = 20 } = {}): RunSummary[] {
      return [...runs.values()]
        .sort((a, b) => b.record.createdAt - a.record.createdAt)
        .slice(0, limit)
        .map((run) => summarize(run));
    },
    acquireLease(runId, holder, ttlMs, now): LeaseResult {
      const run = entry(runId);
      if (run === undefined) throw new Error(`run ${runId} does not exist`);
      const lease = run.lease;
      if (lease !== undefined && lease.holder !== holder && lease.expiresAt > now) {
        return { acquired: false, holder: lease.holder, expiresAt: lease.expiresAt };
      }
      run.lease = { holder, expiresAt: now + ttlMs };
      return { acquired: true };
    },
    releaseLease(runId, holder) {
      const run = entry(runId);
      if (run?.lease?.holder === holder) run.lease = undefined;
    },
    audit(runId) {
      const run = entry(runId);
      if (run === undefined) return undefined;
      return buildAudit({ record: run.record, result: run.result, progress: run.checkpoint?.progress, events: run.events });
    },
  };
}

function summarize(run: RunEntry): RunSummary {
  const tasksDone = run.result?.tasks.length ?? run.checkpoint?.progress.results.length ?? 0;
  return {
    runId: run.record.runId,
    ...(run.record.name === undefined ? {} : { name: run.record.name }),
    createdAt: run.record.createdAt,
    ...(run.result === undefined ? {} : { stop: run.result.stop }),
    tasksDone,
    tasksTotal: run.record.tasks.length,
  };
}
