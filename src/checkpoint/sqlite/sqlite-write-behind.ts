import type { KernelEvent } from '../../contracts/events.js';
import { toJson } from '../json-codec.js';
import { isDualloopError } from '../../errors.js';
import { eventOutOfOrder, fenceRefusal, leaseLost } from '../run-refusals.js';
import type { Statements } from './sqlite-statements.js';
import { IMMEDIATE_EVENT_TYPES } from '../immediate-events.js';


/**
 * `fence`: the lease token the write was made under (undefined: unfenced), checked when the queue
 * is committed. Always present as a field, so that every queued write has one shape (no spread).
 */
type Pending =
  | { readonly kind: 'event'; readonly key: number; readonly runId: string; readonly fence: number | undefined; readonly seq: number; readonly type: string; readonly at: number; readonly body: string }
  | { readonly kind: 'tool'; readonly key: number; readonly runId: string; readonly fence: number | undefined; readonly toolCallId: string; readonly body: string };

/**
 * The SQLite store's write-behind queue (ADR/0020). Events and tool results are serialised and
 * queued, then committed, in order and in one transaction, with the store's next durable write of
 * any run (checkpoint, result, run creation, lease), and at the latest when the current macrotask
 * ends (`setImmediate`). Two kinds of event commit the queue at once: queue changes (no checkpoint
 * holds them yet) and the start of a tool execution while a tool result is queued (a tool that
 * blocks the event loop must not keep an earlier tool's result uncommitted while it runs). So no
 * event or tool result handed over before a checkpoint is lost to a SIGKILL, and a finished tool's
 * result is on disk before any other tool starts or the process waits on anything.
 * A failed commit keeps the queue: the next write retries it (and fails the same way while the
 * cause lasts, so the kernel stops the run `error`).
 */
export class SqliteWriteBehind {
  private pending: Pending[] = [];
  /** How many tool results are queued. */
  private toolResults = 0;
  private scheduled: ReturnType<typeof setImmediate> | undefined;
  /** The last seq appended per run key (read from the table on first use). */
  private readonly lastSeq = new Map<number, number>();
  /** Per run key, the newest token a fenced write was refused for: later writes under it are refused at once. */
  private readonly lost = new Map<number, number>();
  /**
   * While `commitWith` holds the write lock: the fence checks already made in its transaction, by
   * `key:fence`. Nothing else can change a lease row until the commit, so each is read once.
   */
  private fenceChecks: Map<string, string | undefined> | undefined;

  constructor(
    private readonly statements: Statements,
    /** Runs `action` in one IMMEDIATE transaction, rolled back when it throws. */
    private readonly transaction: <T>(action: () => T) => T,
    /** After every commit made through `commitWith`, whether of a transaction or of one statement on its own. */
    private readonly afterCommit: () => void = () => {},
  ) {}

  appendEvent(key: number, event: KernelEvent, fence?: number): void {
    this.refuseLost(key, event.runId, fence);
    const last = this.lastSeq.get(key) ?? this.readLastSeq(key);
    if (!(event.seq > last)) {
      this.requireFence(key, event.runId, fence);
      throw eventOutOfOrder(event.runId, event.seq, last);
    }
    const body = toJson(event, `run ${event.runId}: event ${event.seq}`);
    this.pending.push({ kind: 'event', key, runId: event.runId, fence, seq: event.seq, type: event.type, at: event.at, body });
    this.lastSeq.set(key, event.seq);
    if (IMMEDIATE_EVENT_TYPES.has(event.type) || (event.type === 'tool_execution_start' && this.toolResults > 0)) this.flush();
    else this.schedule();
  }

  recordToolResult(key: number, runId: string, toolCallId: string, body: string, fence?: number): void {
    this.refuseLost(key, runId, fence);
    this.pending.push({ kind: 'tool', key, runId, fence, toolCallId, body });
    this.toolResults += 1;
    this.schedule();
  }

  /** A tool result still queued (the latest for the call), so that reads see every write. */
  queuedToolResult(key: number, toolCallId: string): string | undefined {
    if (this.toolResults === 0) return undefined;
    for (let index = this.pending.length - 1; index >= 0; index -= 1) {
      const item = this.pending[index]!;
      if (item.kind === 'tool' && item.key === key && item.toolCallId === toolCallId) return item.body;
    }
    return undefined;
  }

  /**
   * Commits the queue and then `action`'s writes in one transaction. With nothing queued,
   * `action` runs as it is (a single statement commits on its own) unless `atomic`.
   */
  commitWith<T>(action: () => T, atomic = false): T {
    const value = this.pending.length > 0 ? this.commitQueued(action) : atomic ? this.transaction(action) : action();
    this.afterCommit();
    return value;
  }

  private commitQueued<T>(action: () => T): T {
    const batch = this.pending;
    let value: T;
    try {
      value = this.transaction(() => {
        this.fenceChecks = new Map();
        for (const item of batch) {
          // A write made under a lease that has passed on is dropped, never committed (ADR/0180).
          if (item.fence !== undefined && !this.fenceHolds(item.key, item.fence)) continue;
          if (item.kind === 'event') this.statements.insertEvent.run(item.key, item.seq, item.type, item.at, item.body);
          else this.statements.upsertToolResult.run(item.key, item.toolCallId, item.body);
        }
        return action();
      });
    } catch (error) {
      this.fenceChecks = undefined;
      try {
        this.dropTaken(batch);
      } catch {
        // The file itself is failing: the first error is the one to report.
      }
      // Refused for another reason than the queue: the queue goes on its own, soon.
      if (isDualloopError(error, 'lease_lost')) this.schedule();
      throw error;
    }
    this.fenceChecks = undefined;
    // Only a committed batch leaves the queue (nothing is queued during the synchronous commit).
    this.pending = [];
    this.toolResults = 0;
    return value;
  }

  /**
   * Inside a transaction: refuses (RunError `lease_lost`) a write under `fence` unless it is the
   * run's latest token and its lease has not expired by this host's clock (ADR/0182).
   */
  requireFence(key: number, runId: string, fence: number | undefined): void {
    if (fence === undefined) return;
    this.refuseLost(key, runId, fence);
    const refusal = this.fenceRefusal(key, fence);
    if (refusal === undefined) return;
    this.markLost(key, fence);
    throw leaseLost(runId, refusal);
  }

  /** Commits the queue now (before a read of the log, and on close). */
  flush(): void {
    if (this.pending.length > 0) this.commitWith(() => undefined);
  }

  /** A run ended: its last seq need not be kept (it is read again if the run is resumed). */
  forget(key: number): void {
    if (!this.pending.some((item) => item.key === key)) this.lastSeq.delete(key);
  }

  cancelSchedule(): void {
    if (this.scheduled !== undefined) clearImmediate(this.scheduled);
    this.scheduled = undefined;
  }

  private schedule(): void {
    this.scheduled ??= setImmediate(() => {
      this.scheduled = undefined;
      try {
        this.flush();
      } catch {
        // Kept queued; the next write retries the batch and reports the failure to its caller.
      }
    });
  }

  /**
   * After a failed commit: events whose seq another writer already took (a second process that
   * got past the lease) can never be written, so they leave the queue instead of failing every
   * later write of every run; their runs' last seqs are read again. The failure itself has been
   * thrown to the caller, and the kernel stops that run `error`.
   */
  private dropTaken(batch: readonly Pending[]): void {
    const taken = batch.filter((item) => item.kind === 'event' && this.statements.eventExists.get(item.key, item.seq) !== undefined);
    if (taken.length === 0) return;
    this.pending = batch.filter((item) => !taken.includes(item));
    for (const item of taken) this.lastSeq.delete(item.key);
  }

  private fenceRefusal(key: number, fence: number): string | undefined {
    const id = `${key}:${fence}`;
    if (this.fenceChecks?.has(id) === true) return this.fenceChecks.get(id);
    const refusal = this.readFenceRefusal(key, fence);
    this.fenceChecks?.set(id, refusal);
    return refusal;
  }

  private readFenceRefusal(key: number, fence: number): string | undefined {
    const row = this.statements.getLease.get(key) as { token: number; expires_at: number } | undefined;
    return fenceRefusal(fence, row === undefined ? undefined : { token: Number(row.token), expiresAt: Number(row.expires_at) }, Date.now());
  }

  private fenceHolds(key: number, fence: number): boolean {
    if (this.fenceRefusal(key, fence) === undefined) return true;
    this.markLost(key, fence);
    // The refused events never reach the log: its end is read again for the next writer.
    this.lastSeq.delete(key);
    return false;
  }

  private markLost(key: number, fence: number): void {
    this.lost.set(key, Math.max(fence, this.lost.get(key) ?? 0));
  }

  private refuseLost(key: number, runId: string, fence: number | undefined): void {
    const lost = this.lost.get(key);
    if (fence !== undefined && lost !== undefined && fence <= lost) throw leaseLost(runId, `the lease of token ${fence} was lost`);
  }

  private readLastSeq(key: number): number {
    const row = this.statements.lastEventSeq.get(key) as { seq: number } | undefined;
    const last = Number(row?.seq ?? 0);
    this.lastSeq.set(key, last);
    return last;
  }
}
