// Kept apart from fork-route.ts, whose declarations name node:http types: the public
// `dualloop/viewer` types reach this file only, and need no @types/node (ADR/0401).
import type { ForkPoint } from '../contracts/fork.js';
import type { ApprovalAnswer } from '../contracts/policy.js';

/** What lets a viewer change things. Without it the viewer only reads the store. */
export interface ViewerControl {
  /** Starts a fork of `runId` at `at` and answers the new run's id once it is recorded (its events follow in the store). */
  fork(runId: string, at: ForkPoint): Promise<string>;
  /**
   * Answers a parked approval of `runId` (as `approveRun` does) and resolves to the approval id
   * answered; may reject with a ConfigError (invalid answer, edited arguments the tool refuses) or
   * a RunError. Without it the page shows the approval form disabled.
   */
  approve?(runId: string, request: { readonly approvalId: string; readonly answer: ApprovalAnswer }): Promise<string>;
}
