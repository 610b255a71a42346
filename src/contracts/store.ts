import type { AuditReport } from './audit.js';
import type { KernelEvent } from './events.js';
import type { StopCondition } from './stop.js';
import type { ToolResult } from './tool.js';
import type { WorkflowResult } from './results.js';
import type { TaskSpec } from './turn-protocol.js';
import type { WorkflowProgress } from './workflow-protocol.js';

export type MaybePromise<T> = T | Promise<T>;

/** Current version of the checkpoint envelope; older ones are migrated on read, newer ones refused. */
export const CHECKPOINT_VERSION = 1;

/** What a checkpoint holds; validated with zod when read back (src/checkpoint/envelope.ts). */
export interface CheckpointEnvelope {
  readonly version: number;
  readonly runId: string;
  /** `task`: at a task boundary (CHECKPOINT state); `turn`: after a turn. */
  readonly kind: 'task' | 'turn';
  /** Strictly increasing per run. */
  readonly sequence: number;
  readonly savedAt: number;
  /** `seq` of the last event emitted before this checkpoint. */
  readonly eventSeq: number;
  readonly progress: WorkflowProgress;
}

/** What a run was started with: enough to resume it in another process. */
export interface RunRecord {
  readonly runId: string;
  readonly name?: string;
  /** SHA-256 of the run's options (secrets excluded), to warn when a resume uses different ones. */
  readonly optionsDigest: string;
  readonly tasks: readonly TaskSpec[];
  readonly createdAt: number;
}

export interface RunSummary {
  readonly runId: string;
  readonly name?: string;
  readonly createdAt: number;
  readonly stop?: StopCondition;
  /** Tasks that finished for good: a task halted for a resumable reason runs again on resume and is not counted. */
  readonly tasksDone: number;
  readonly tasksTotal: number;
}

export type LeaseResult = { readonly acquired: true } | { readonly acquired: false; readonly holder: string; readonly expiresAt: number };

/**
 * Where runs are kept: checkpoints, tool results by `toolCallId`, the event log, the final result.
 * Methods may be synchronous (memory, SQLite) or return promises (a network store).
 * Secrets never reach a store: the kernel redacts them before calling it.
 * `test/store/conformance.ts` is the suite every implementation must pass.
 */
export interface CheckpointStore {
  readonly kind: string;
  createRun(record: RunRecord): MaybePromise<void>;
  getRun(runId: string): MaybePromise<RunRecord | undefined>;
  saveCheckpoint(envelope: CheckpointEnvelope): MaybePromise<void>;
  /** The latest checkpoint as stored, not yet validated (the kernel validates it). */
  loadCheckpoint(runId: string): MaybePromise<unknown>;
  recordToolResult(runId: string, result: ToolResult): MaybePromise<void>;
  getToolResult(runId: string, toolCallId: string): MaybePromise<ToolResult | undefined>;
  appendEvent(event: KernelEvent): MaybePromise<void>;
  readEvents(runId: string, afterSeq?: number): MaybePromise<readonly KernelEvent[]>;
  saveResult(result: WorkflowResult): MaybePromise<void>;
  loadResult(runId: string): MaybePromise<WorkflowResult | undefined>;
  listRuns(options?: { readonly limit?: number }): MaybePromise<readonly RunSummary[]>;
  /** Takes or renews the run's lease for `holder` until `now + ttlMs`; refused while another holder's lease is live. */
  acquireLease(runId: string, holder: string, ttlMs: number, now: number): MaybePromise<LeaseResult>;
  releaseLease(runId: string, holder: string): MaybePromise<void>;
  /** The stop tree and policy decisions of a run (src/audit/build-audit.ts builds it from the other methods). */
  audit(runId: string): MaybePromise<AuditReport | undefined>;
  close?(): MaybePromise<void>;
}
