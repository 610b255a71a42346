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
  'invalid_output',
  'dependency_failed',
  'error',
]);
export type StopReason = z.infer<typeof StopReason>;

/** The bound that fired, with its configured value and the count that reached it. */
export interface StopBound {
  readonly name: string;
  readonly limit: number;
  readonly value: number;
}

interface StopFields {
  readonly detail: string;
  readonly bound?: StopBound;
  /** Epoch milliseconds from the injected clock. */
  readonly at: number;
}

/**
 * A stop with reason `error`: `code` says what failed, from the closed `ErrorCode` union
 * (docs/errors.md). Every error stop carries one (ADR/0242).
 */
export interface ErrorStop extends StopFields {
  readonly reason: 'error';
  readonly code: ErrorCode;
}

/** A stop for any other reason: it carries no code. */
export interface OutcomeStop extends StopFields {
  readonly reason: Exclude<StopReason, 'error'>;
  readonly code?: undefined;
}

/** How a loop ended: the closed union of stop details; `error` stops carry a code. */
export type StopCondition = ErrorStop | OutcomeStop;

/** A stop without its time, as stop conditions and evaluators propose it (`at` is added when it is chosen). */
export type StopCandidate = StopCondition extends infer Stop ? (Stop extends StopCondition ? Omit<Stop, 'at'> : never) : never;

export { isBoundStop, isNaturalCompletion, isResumableStop, pickStop, RESUMABLE_REASONS, stopPriority } from './stop-rules.js';
