import type { Message } from './messages.js';
import type { StopReason } from './stop.js';
import type { TurnResult, TaskResult, WorkflowMetrics } from './results.js';
import type { Usage } from './usage.js';

/** One tool call as the hooks see it. */
export interface ToolInvocation {
  readonly runId: string;
  readonly taskId: string;
  readonly turn: number;
  readonly toolCallId: string;
  readonly name: string;
  readonly args: unknown;
}

/**
 * Before a validated call runs. Return nothing to go on, `{ block: reason }` to refuse it
 * (the model sees `reason` as an error result), or `{ args }` to replace its arguments
 * (validated again). A throw ends the task `error`.
 */
export type BeforeToolCall = (
  invocation: ToolInvocation,
  signal: AbortSignal,
) => void | undefined | BeforeToolCallResult | Promise<void | undefined | BeforeToolCallResult>;
export type BeforeToolCallResult = { readonly block: string } | { readonly args: unknown };

export interface ToolOutcome {
  readonly result: unknown;
  readonly isError: boolean;
}

/**
 * After a call ran (or failed). Return nothing to keep the result, or a replacement.
 * A throw ends the task `error`.
 */
export type AfterToolCall = (
  invocation: ToolInvocation,
  outcome: ToolOutcome,
  signal: AbortSignal,
) => void | undefined | Partial<ToolOutcome> | Promise<void | undefined | Partial<ToolOutcome>>;

/** What the model sees this call; the stored transcript is untouched. A throw ends the task `error`. */
export type TransformContext = (messages: readonly Message[], signal: AbortSignal) => readonly Message[] | Promise<readonly Message[]>;

/** Messages appended for one model call only, never stored. Errors are ignored (a `warning` event). */
export type EphemeralMessages = (info: { readonly runId: string; readonly taskId: string; readonly turn: number }) =>
  | readonly Message[]
  | Promise<readonly Message[]>;

/** A user check after each turn; `true` ends the task `goal_achieved`. A throw ends the task `error`. */
export type ShouldStopAfterTurn = (turn: TurnResult, task: { readonly id: string; readonly index: number }) => boolean | Promise<boolean>;

/** What a user stop evaluator returns to stop: a reason from the closed enum and why. */
export interface StopVerdict {
  readonly reason: StopReason;
  readonly detail?: string;
}

export interface InnerStopView {
  readonly runId: string;
  readonly taskId: string;
  readonly taskIndex: number;
  readonly turn: number;
  readonly toolCalls: number;
  readonly usage: Usage;
  readonly costUsd: number;
  readonly elapsedMs: number;
  readonly lastText: string;
  readonly messages: readonly Message[];
}

/**
 * Called at every CHECK_STOP after the built-in conditions. Return a verdict to stop, or nothing.
 * May be async; a throw ends the task `error`. The priority order still applies.
 */
export type InnerStopEvaluator = (view: InnerStopView, signal: AbortSignal) => StopVerdict | undefined | Promise<StopVerdict | undefined>;

export interface OuterStopView {
  readonly runId: string;
  readonly results: readonly TaskResult[];
  readonly metrics: WorkflowMetrics;
}

/** Called at every NEXT_TASK after the built-in conditions. */
export type OuterStopEvaluator = (view: OuterStopView, signal: AbortSignal) => StopVerdict | undefined | Promise<StopVerdict | undefined>;

/**
 * Decides when the transcript is compacted (at TURN_INIT) and how. `shouldCompact` is synchronous
 * and cheap (it runs every turn); `compact` may be async (e.g. a summarising model call) and must
 * not mutate its input. A throw from `compact`, or a result that is not a list of messages, ends the
 * task `error` with an `error` event of scope `compactor`.
 */
export interface Compactor {
  readonly shouldCompact: (messages: readonly Message[], info: { readonly turn: number }) => boolean;
  readonly compact: (messages: readonly Message[], signal: AbortSignal) => readonly Message[] | Promise<readonly Message[]>;
}
