import type { ErrorCode } from './error-codes.js';
import type { GuardrailStage } from './guardrails.js';
import { StopReason } from './stop-reason.js';

export { StopReason };

/** The bound that fired, with its configured value and the count that reached it. */
export interface StopBound {
  readonly name: string;
  readonly limit: number;
  readonly value: number;
}

interface StopFields {
  readonly detail: string;
  readonly bound?: StopBound;
  /** `guardrail_tripped`: the guardrail that tripped, where, and why. */
  readonly guardrail?: { readonly name: string; readonly on: GuardrailStage; readonly reason: string };
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
