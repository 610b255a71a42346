import type { MaybePromise } from '../contracts/store.js';
import { describeError } from '../errors.js';

/**
 * A run's tool results whose writes are still in flight (ADR/0492). A finished call's result is
 * handed to the store and the turn goes on, so that an asynchronous store commits it with the
 * turn's checkpoint: one commit per turn instead of two. Before another tool of the run runs,
 * every earlier result must have committed — so a crash re-runs at most the calls that had not
 * been recorded when it struck, never one whose result a later call could have depended on.
 */
export class ToolResultRecordings {
  private readonly pending = new Set<Promise<void>>();
  private failure: Error | undefined;

  /** Tracks a write (nothing to track for a synchronous store); its failure is kept, never thrown here. */
  hand(write: MaybePromise<void>, toolName: string): void {
    if (!(write instanceof Promise)) return;
    const tracked: Promise<void> = write.then(
      () => {
        this.pending.delete(tracked);
      },
      (error: unknown) => {
        this.pending.delete(tracked);
        this.failure ??= new Error(`recording the result of tool "${toolName}" failed: ${describeError(error)}`);
      },
    );
    this.pending.add(tracked);
  }

  /**
   * Resolves once every handed write committed; rejects with the first one that failed.
   * `undefined` when none is in flight and none failed: the caller goes on without a wait (and
   * without the microtask a resolved promise would still cost it).
   */
  committed(): Promise<void> | undefined {
    if (this.pending.size === 0 && this.failure === undefined) return undefined;
    return this.settled();
  }

  private async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
    if (this.failure !== undefined) throw this.failure;
  }
}
