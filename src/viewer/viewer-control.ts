// Kept apart from fork-route.ts, whose declarations name node:http types: the public
// `dualloop/viewer` types reach this file only, and need no @types/node (ADR/0401).
import type { ForkPoint } from '../contracts/fork.js';

/** What lets a viewer change things. Without it the viewer only reads the store. */
export interface ViewerControl {
  /** Starts a fork of `runId` at `at` and answers the new run's id once it is recorded (its events follow in the store). */
  fork(runId: string, at: ForkPoint): Promise<string>;
}
