import type { ApprovalAnswer } from './policy.js';

/**
 * A command for a run sent from any process through its store (ADR/0184): the process running
 * it acts on `cancel` and `steer` as on `abort()` / `steer()`; `approve` answers a parked approval
 * for the next `resume`.
 */
export type ControlCommand =
  | { readonly kind: 'cancel'; readonly reason?: string }
  /** `taskId`: for that task alone (as `run.steer(message, { taskId })`); else for every task running when it arrives. */
  | { readonly kind: 'steer'; readonly message: string; readonly taskId?: string }
  | { readonly kind: 'approve'; readonly approvalId: string; readonly answer: ApprovalAnswer; readonly reason?: string };

/**
 * What a store that carries commands between processes adds to `CheckpointStore` (SQLite and
 * Postgres do). `takeControls` hands each `cancel` / `steer` command out once, oldest first, to
 * the run's lease holder (`fence`: refused `lease_lost` otherwise); approvals stay for resumes.
 */
export interface ControlChannel {
  /** Stores the command; an `approve` for an approval that already has one is refused (RunError `approval_answered`). */
  sendControl(runId: string, command: ControlCommand): void | Promise<void>;
  takeControls(runId: string, fence?: number): readonly ControlCommand[] | Promise<readonly ControlCommand[]>;
  /** The stored answers to the run's approvals, by approval id. */
  approvalAnswers(runId: string): ReadonlyMap<string, ApprovalAnswer> | Promise<ReadonlyMap<string, ApprovalAnswer>>;
  /**
   * Calls `onCommand` soon after a command for the run is sent from any process (Postgres:
   * LISTEN/NOTIFY); absent where the kernel polls instead (SQLite). Returns the unsubscribe.
   */
  watchControls?(runId: string, onCommand: () => void): () => void;
}

export function hasControlChannel(store: object): store is ControlChannel {
  const value = store as Partial<ControlChannel>;
  return typeof value.sendControl === 'function' && typeof value.takeControls === 'function' && typeof value.approvalAnswers === 'function';
}
