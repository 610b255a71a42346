import { z } from 'zod';
import type { ErrorCode } from './error-codes.js';

/**
 * The closed set of reasons a loop may end with. Both loops end with exactly one of these;
 * `docs/loop-control.md` explains each one and the priority order below.
 */
export const StopReason = z.enum([
  'planner_stopped',
  'goal_achieved',
  'tool_terminated',
  'loop_detected',
  'max_turns',
  'max_tool_calls',
  'max_runtime',
  'max_workflow_steps',
  'max_session_runtime',
  'max_replans',
  'budget_exhausted',
  'policy_denied',
  'awaiting_approval',
  'context_canceled',
  'error',
]);
export type StopReason = z.infer<typeof StopReason>;

/** The bound that fired, with its configured value and the count that reached it. */
export interface StopBound {
  readonly name: string;
  readonly limit: number;
  readonly value: number;
}

export interface StopCondition {
  readonly reason: StopReason;
  readonly detail: string;
  /** With reason `error`: what failed, from the closed `ErrorCode` union (docs/errors.md). */
  readonly code?: ErrorCode;
  readonly bound?: StopBound;
  /** Epoch milliseconds from the injected clock. */
  readonly at: number;
}

/**
 * Priority when several reasons hold at one check: a lower rank wins.
 * DESIGN.md section 2; `loop_detected` sits between budgets and counting bounds.
 */
const RANK: Readonly<Record<StopReason, number>> = {
  context_canceled: 0,
  error: 1,
  planner_stopped: 2,
  goal_achieved: 2,
  tool_terminated: 2,
  policy_denied: 3,
  awaiting_approval: 3,
  max_runtime: 4,
  max_session_runtime: 4,
  budget_exhausted: 5,
  loop_detected: 6,
  max_turns: 7,
  max_workflow_steps: 7,
  max_replans: 7,
  max_tool_calls: 8,
};

export function stopPriority(reason: StopReason): number {
  return RANK[reason];
}

/** Natural completion: the work ended on its own terms, not because something cut it. */
export function isNaturalCompletion(reason: StopReason): boolean {
  return reason === 'planner_stopped' || reason === 'goal_achieved' || reason === 'tool_terminated';
}

/** Stops caused by a configured bound (counts, deadlines, budgets, repetition). */
export function isBoundStop(reason: StopReason): boolean {
  return RANK[reason] >= 4;
}

/** Picks the highest-priority candidate; the earliest wins among equal ranks. */
export function pickStop<T extends { readonly reason: StopReason }>(candidates: readonly (T | undefined)[]): T | undefined {
  let best: T | undefined;
  for (const candidate of candidates) {
    if (candidate !== undefined && (best === undefined || RANK[candidate.reason] < RANK[best.reason])) best = candidate;
  }
  return best;
}
