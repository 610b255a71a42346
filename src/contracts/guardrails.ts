/**
 * Guardrails (docs/guardrails.md): named checks that stop a task with `guardrail_tripped`
 * instead of a free-text refusal. Four places: the task's description before its first model call
 * (`input`), the final answer before the task ends (`output`), a tool call's arguments before the
 * policy gate (`tool_call`) and a tool's result before the model sees it (`tool_result`).
 */
import type { Usage } from './usage.js';

export type GuardrailStage = 'input' | 'output' | 'tool_call' | 'tool_result';

export const GUARDRAIL_STAGES: readonly GuardrailStage[] = ['input', 'output', 'tool_call', 'tool_result'];

/**
 * What a trip does. `stop` (the default) ends the task `guardrail_tripped`. `revise` lets the
 * model try again: an output trip sends the reason back as another turn (counted with the typed
 * output repairs, at most `maxOutputRepairs`; then the task stops); a tool-call or tool-result trip
 * refuses the call or withholds the result, and the model sees why. Input guardrails only stop.
 */
export type GuardrailMode = 'stop' | 'revise';

/** Where a check runs: the task, the turn, and for tool stages the call. */
export interface GuardrailContext {
  readonly runId: string;
  readonly taskId: string;
  readonly taskIndex: number;
  /** 1 for input guardrails (before the first call). */
  readonly turn: number;
  readonly stage: GuardrailStage;
  /** Tool stages: the call being checked. */
  readonly toolName?: string;
  readonly toolCallId?: string;
  /** Output stage of a typed task: the parsed answer that matched the task's `output` schema. */
  readonly output?: unknown;
  /** Aborts when the task stops or the check's `timeoutMs` passes. */
  readonly signal: AbortSignal;
  /**
   * Charges what the check spent (a model call that judges) to the task: it counts against the
   * task's and the workflow's token and cost budgets, like the task's own calls.
   */
  readonly charge: (usage: Usage, costUsd?: number) => void;
}

export interface GuardrailVerdict {
  readonly tripped: boolean;
  /** Why it tripped: in the stop's detail, the `guardrail_tripped` event and the audit. */
  readonly reason?: string;
}

/**
 * A guardrail. `check` gets the value of its stage: the task's description (`input`), the final
 * answer's text (`output`), the call's validated arguments (`tool_call`), or the tool's result as
 * the model would see it (`tool_result`, a string). A check that throws, answers something else
 * than `{ tripped: boolean }` or does not answer within `timeoutMs` (default 30 s) trips: a
 * guardrail fails closed.
 */
export interface Guardrail {
  readonly name: string;
  readonly on: GuardrailStage;
  readonly check: (value: unknown, context: GuardrailContext) => GuardrailVerdict | Promise<GuardrailVerdict>;
  readonly mode?: GuardrailMode;
  readonly timeoutMs?: number;
  /**
   * A version for the workflow's fingerprint (docs/operations.md): change it when the check's
   * behaviour changes, so that runs started under the old one do not resume unnoticed.
   */
  readonly version?: string;
}

/** A guardrail that tripped: recorded with the tool result or the turn, and in the stop. */
export interface GuardrailTrip {
  readonly name: string;
  readonly on: GuardrailStage;
  readonly reason: string;
  readonly mode: GuardrailMode;
}

/** What the checks of one place spent, charged to the task with the call or tool result they checked. */
export interface GuardrailSpend {
  readonly usage: Usage;
  readonly costUsd: number;
}

export const DEFAULT_GUARDRAIL_TIMEOUT_MS = 30_000;
/** A trip's reason is cut here: it travels in stops, events and repair messages. */
export const MAX_GUARDRAIL_REASON_CHARS = 1_000;

/** How a stop detail and an event name a trip. */
export function describeTrip(trip: GuardrailTrip): string {
  return `guardrail "${trip.name}" (${trip.on}) tripped: ${trip.reason}`;
}

/** The stop a trip becomes, without its time. */
export function tripStop(trip: GuardrailTrip) {
  return { reason: 'guardrail_tripped', detail: describeTrip(trip), guardrail: { name: trip.name, on: trip.on, reason: trip.reason } } as const;
}
