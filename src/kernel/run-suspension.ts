import type { KernelEvent } from '../contracts/events.js';
import type { WorkflowRun } from './workflow-run.js';

/**
 * Internal (not exported from the package): how a worker hands a run back to its queue without
 * ending it (ADR/0201). `run[SUSPEND_RUN]({ atTurnBoundary })` stops the run at its next turn
 * boundary — the next `checkpoint_saved` with no tool call in flight — or, when `atTurnBoundary`
 * is false, at the first moment no tool call is in flight. A suspended run writes nothing more,
 * saves no result, releases its lease and ends locally with `error` / `suspended`: the store
 * holds it as a crash would leave it, and the next `resume` continues from its last checkpoint
 * without running a recorded tool again. Resolves when the run ended: true if it was suspended,
 * false if it ended on its own first.
 */
export const SUSPEND_RUN: unique symbol = Symbol('dualloop.suspendRun');

export interface SuspendRequest {
  readonly atTurnBoundary: boolean;
}

export type SuspendableRun = WorkflowRun & { [SUSPEND_RUN](request: SuspendRequest): Promise<boolean> };

export function suspendRun(run: WorkflowRun, request: SuspendRequest): Promise<boolean> {
  return (run as SuspendableRun)[SUSPEND_RUN](request);
}

/**
 * Watches a run's events for the moment a requested suspension may happen. A tool call in flight
 * is never cut: its result is recorded before its `tool_execution_end`, so a resume replays it.
 */
export class SuspensionPoint {
  private openTools = 0;
  private request: SuspendRequest | undefined;

  constructor(private readonly suspend: () => void) {}

  /** Asks for a suspension (a later, looser request replaces a stricter one); may suspend at once. */
  ask(request: SuspendRequest): void {
    if (this.request === undefined || !request.atTurnBoundary) this.request = request;
    if (!request.atTurnBoundary && this.openTools === 0) this.suspend();
  }

  /** The run's event listener: called for every event, in order, as it is emitted. */
  readonly listener = (event: KernelEvent): void => {
    if (event.type === 'tool_execution_start') this.openTools += 1;
    else if (event.type === 'tool_execution_end') this.openTools = Math.max(0, this.openTools - 1);
    if (this.request === undefined || this.openTools > 0) return;
    if (!this.request.atTurnBoundary || event.type === 'checkpoint_saved') this.suspend();
  };
}
