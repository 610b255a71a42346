import type { CheckpointStore, MaybePromise } from '../contracts/store.js';
import { FailureError, isDualloopError, RunError } from '../errors.js';

/**
 * The lease a run's writes are made under (ADR/0180): its fencing token once the store granted
 * it (`ready` until then, for an asynchronous store), and whether it was lost.
 */
export class RunFence {
  token: number | undefined;
  lost = false;
  /** Lost on purpose: the run was suspended (src/kernel/run-suspension.ts); the lease is still ours to release. */
  suspended = false;
  /**
   * When (`performance.now()`, monotonic) the store was last asked for the lease that it granted
   * with this token: the lease runs at least `leaseMs` from then by the store's clock, so until
   * then no other process can hold the run (ADR/0320). Moved by each renewal that keeps the token.
   */
  confirmedAt: number;
  private waiting: Promise<number> | undefined;

  /** `askedAt`: when the lease was asked for, if before now (default: now, before asking). */
  constructor(
    readonly runId: string,
    askedAt: number = performance.now(),
  ) {
    this.confirmedAt = askedAt;
  }

  /** The token once known: at once for a synchronous store, else when the lease was granted. */
  set(token: MaybePromise<number>): void {
    if (token instanceof Promise) {
      this.waiting = token.then((value) => (this.token = value));
      this.waiting.catch(() => undefined);
    } else this.token = token;
  }

  tokenOrPromise(): MaybePromise<number> {
    if (this.token !== undefined) return this.token;
    if (this.waiting !== undefined) return this.waiting;
    throw new FailureError({ code: 'internal_error', message: `internal: run ${this.runId} writes before its lease was taken` });
  }

  refusal(): RunError {
    return new RunError({ code: 'lease_lost', runId: this.runId, message: `run ${this.runId}: lease_lost: this process no longer holds the run; nothing more is written` });
  }
}

// The store may come from another copy of dualloop: the brand, not `instanceof`.
const isLeaseLost = (error: unknown): boolean => isDualloopError(error, 'lease_lost');

/**
 * The store as one run's writes see it: every write carries the run's fencing token; once the
 * lease is lost (a write refused `lease_lost`, or a renewal that did not keep the token), every
 * later write is refused here without reaching the store, and `onLost` stops the run.
 * Reads pass through unchanged. Synchronous stores stay synchronous.
 */
export function fencedStore(store: CheckpointStore, fence: RunFence, onLost: (detail: string) => void): CheckpointStore {
  const lose = (error: unknown): never => {
    if (isLeaseLost(error) && !fence.lost) {
      fence.lost = true;
      onLost(error instanceof Error ? error.message : String(error));
    }
    throw error;
  };
  const write = <T>(action: (token: number) => MaybePromise<T>): MaybePromise<T> => {
    if (fence.lost) throw fence.refusal();
    const token = fence.tokenOrPromise();
    if (token instanceof Promise) return token.then((value) => (fence.lost ? Promise.reject(fence.refusal()) : action(value))).catch(lose);
    let result: MaybePromise<T>;
    try {
      result = action(token);
    } catch (error) {
      return lose(error);
    }
    return result instanceof Promise ? result.catch(lose) : result;
  };
  const fenced: CheckpointStore = Object.create(store) as CheckpointStore;
  return Object.assign(fenced, {
    kind: store.kind,
    saveCheckpoint: (entry: Parameters<CheckpointStore['saveCheckpoint']>[0]) => write((token) => store.saveCheckpoint(entry, token)),
    recordToolResult: (runId: string, result: Parameters<CheckpointStore['recordToolResult']>[1]) => write((token) => store.recordToolResult(runId, result, token)),
    appendEvent: (event: Parameters<CheckpointStore['appendEvent']>[0]) => write((token) => store.appendEvent(event, token)),
    saveResult: (result: Parameters<CheckpointStore['saveResult']>[0]) => write((token) => store.saveResult(result, token)),
  });
}
