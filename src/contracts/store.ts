import type { AuditReport } from './audit.js';
import type { KernelEvent } from './events.js';
import type { StopCondition } from './stop.js';
import type { ToolResult } from './tool.js';
import type { WorkflowResult } from './results.js';
import type { TaskSpec } from './turn-protocol.js';
import type { CheckpointEntry, CheckpointIndexEntry, StoredCheckpoints } from './checkpoint.js';
import type { ForkOrigin } from './fork.js';
import type { WorkflowFingerprint } from './fingerprint.js';

export type MaybePromise<T> = T | Promise<T>;

/** What a run was started with: enough to resume it in another process. */
export interface RunRecord {
  readonly runId: string;
  readonly name?: string;
  /** SHA-256 of the run's options (secrets excluded), to warn when a resume uses different ones. */
  readonly optionsDigest: string;
  readonly tasks: readonly TaskSpec[];
  readonly createdAt: number;
  /** Set when the run is a fork (`kernel.fork`): the run and the point it started from. Kept as given. */
  readonly forkOf?: ForkOrigin;
  /** Set when the run is a delegated child (`agentTool`): the run and the tool call that started it. */
  readonly parent?: RunParent;
  /**
   * What shaped the run, item by item (docs/operations.md): a resume, fork or worker refuses to
   * take it up with another (`workflow_changed`) unless told to accept the change. Absent for runs
   * recorded before fingerprints (their `optionsDigest` is compared instead, with a warning).
   */
  readonly fingerprint?: WorkflowFingerprint;
  /** Set on a run an eval started (`kernel.evaluate`, docs/evals.md): the recorded run it replays (the case's own id for a task-list case) and the suite. */
  readonly evalOf?: EvalOrigin;
}

/** The recorded run and suite an eval's run belongs to. */
export interface EvalOrigin {
  readonly runId: string;
  readonly suite: string;
}

/** The run and tool call a delegated run (`agentTool`) was started by. */
export interface RunParent {
  readonly runId: string;
  readonly toolCallId: string;
}

export interface RunSummary {
  readonly runId: string;
  readonly name?: string;
  readonly createdAt: number;
  /** The record's `forkOf`, so that a run list can show lineage. */
  readonly forkOf?: ForkOrigin;
  /** The record's `parent`: a delegated run is listed under the run that started it. */
  readonly parent?: RunParent;
  /** The record's `evalOf`: a run an eval started. */
  readonly evalOf?: EvalOrigin;
  readonly stop?: StopCondition;
  /** Tasks that finished for good: a task halted for a resumable reason runs again on resume and is not counted. */
  readonly tasksDone: number;
  readonly tasksTotal: number;
}

/**
 * A granted lease carries its fencing token: a number that only grows per run (a new holder gets
 * a larger one; a renewal keeps it). Writes made under the lease pass it (`fence`), and the store
 * refuses them once a newer token exists or the lease has expired (ADR/0180).
 */
export type LeaseResult =
  | { readonly acquired: true; readonly token: number; readonly expiresAt: number }
  | { readonly acquired: false; readonly holder: string; readonly expiresAt: number };

export interface LeaseOptions {
  /**
   * Take the lease over from this holder even though it has not expired (the caller knows it is
   * dead: a process of this host that no longer exists). Granted only while it still holds it.
   */
  readonly takeOverFrom?: string;
}

/**
 * Where runs are kept: checkpoints, tool results by `toolCallId`, the event log, the final result.
 * Writes take an optional `fence` (a lease token): when given, the store refuses the write in the
 * same transaction (RunError `lease_lost`) unless that token is the run's latest and its lease has
 * not expired. Without it (tools, tests, admin scripts) writes are not fenced.
 * Methods may be synchronous (memory, SQLite) or return promises (a network store).
 * Secrets never reach a store: the kernel redacts them before calling it.
 * `test/store/conformance.ts` is the suite every implementation must pass.
 */
export interface CheckpointStore {
  readonly kind: string;
  createRun(record: RunRecord): MaybePromise<void>;
  getRun(runId: string): MaybePromise<RunRecord | undefined>;
  /**
   * Appends one entry to the run's checkpoint history, with the task results it commits, in one
   * transaction. Refuses (`RunError checkpoint_out_of_order`) a sequence that is not after the
   * run's last, and results whose positions do not follow the run's last committed one. Nothing
   * already stored changes: a resume or a fork reads the history back (ADR/0120).
   */
  saveCheckpoint(entry: CheckpointEntry, fence?: number): MaybePromise<void>;
  /**
   * The history at `at.sequence` (default: the latest entry), as stored and not yet validated:
   * the committed results at that point and the entries from the latest snapshot at or before it.
   * `undefined` when the run has no entry at or before the point.
   */
  loadCheckpoint(runId: string, at?: { readonly sequence: number }): MaybePromise<StoredCheckpoints | undefined>;
  /** Every entry of the run's history, oldest first, without bodies. */
  listCheckpoints(runId: string): MaybePromise<readonly CheckpointIndexEntry[]>;
  /**
   * Records a call's result, replayed instead of running the tool again on resume. The kernel does
   * not wait for the promise at once: it waits for it before the run's next tool starts and before
   * the run ends, so that a store may commit it with the turn's checkpoint (ADR/0492).
   */
  recordToolResult(runId: string, result: ToolResult, fence?: number): MaybePromise<void>;
  getToolResult(runId: string, toolCallId: string): MaybePromise<ToolResult | undefined>;
  appendEvent(event: KernelEvent, fence?: number): MaybePromise<void>;
  readEvents(runId: string, afterSeq?: number): MaybePromise<readonly KernelEvent[]>;
  saveResult(result: WorkflowResult, fence?: number): MaybePromise<void>;
  loadResult(runId: string): MaybePromise<WorkflowResult | undefined>;
  listRuns(options?: { readonly limit?: number }): MaybePromise<readonly RunSummary[]>;
  /**
   * Takes or renews the run's lease for `holder` for `ttlMs`, judged by the store's own clock (the
   * database server's for Postgres; the host's for SQLite and memory), never the caller's:
   * refused while another holder's lease is live. A renewal keeps the token; a new holder gets the
   * next one.
   */
  acquireLease(runId: string, holder: string, ttlMs: number, options?: LeaseOptions): MaybePromise<LeaseResult>;
  releaseLease(runId: string, holder: string): MaybePromise<void>;
  /**
   * Replaces the run's fingerprint after an accepted change (`acceptChange`), so that the next
   * resume compares with what the run now runs. A store without it keeps the first one: each later
   * resume must accept the change again.
   */
  updateFingerprint?(runId: string, fingerprint: WorkflowFingerprint, fence?: number): MaybePromise<void>;
  /** The stop tree and policy decisions of a run (src/audit/build-audit.ts builds it from the other methods). */
  audit(runId: string): MaybePromise<AuditReport | undefined>;
  close?(): MaybePromise<void>;
}
