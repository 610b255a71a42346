/**
 * The engine-agnostic adapter contract (DESIGN.md section 6). An engine runs one agent loop per
 * `stream()` call and reports it as a flat stream of events ending with exactly one `done`.
 * Nothing here names a machine, a state or an actor: `loopEngine` implements it with a `while` loop.
 */
import type { Message } from '../contracts/messages.js';
import type { ErrorCode } from '../contracts/error-codes.js';
import type { StopReason } from '../contracts/stop.js';
import type { Usage } from '../contracts/usage.js';

export interface EngineInput {
  /** A new user message. Alone, it continues the engine's conversation (empty at first). */
  readonly prompt?: string;
  /** A conversation to start from instead of the engine's own; `prompt`, if given, is appended. */
  readonly messages?: readonly Message[];
  /** Aborting it stops the run pre-emptively: it ends `context_canceled`. */
  readonly signal?: AbortSignal;
}

export interface EngineMetrics {
  /** Model calls that counted as turns (a wrap-up call does not). */
  readonly turns: number;
  readonly toolCalls: number;
  readonly costUsd: number;
  readonly durationMs: number;
}

export interface EngineOutput {
  /** The final answer: the last assistant text (the wrap-up answer when there was one). */
  readonly text: string;
  readonly stopReason: StopReason;
  /** Why, in words (the StopCondition's detail). */
  readonly stopDetail: string;
  /** With `stopReason` `error` (and only then): what failed, from the closed `ErrorCode` union (docs/errors.md). */
  readonly stopCode?: ErrorCode;
  readonly usage: Usage;
  readonly metrics: EngineMetrics;
}

/**
 * What a stream yields. `turnIndex` is 0-based. Tool start/end pair by `toolCallId`; every stream
 * ends with exactly one `done`, also when the run failed (then `stopReason` is `error`).
 */
export type EngineEvent =
  | {
      readonly type: 'text_delta';
      readonly turnIndex: number;
      /** Never empty. */
      readonly delta: string;
      /** The tool-less wrap-up call after a bound (dualloop engine with `wrapUpOnBound`); not a turn. */
      readonly wrapUp?: true;
    }
  | { readonly type: 'tool_call_start'; readonly turnIndex: number; readonly toolCallId: string; readonly name: string; readonly args: unknown }
  | {
      readonly type: 'tool_call_end';
      readonly turnIndex: number;
      readonly toolCallId: string;
      readonly name: string;
      readonly result: unknown;
      readonly isError: boolean;
    }
  | { readonly type: 'turn_end'; readonly turnIndex: number; readonly text: string; readonly toolCalls: number }
  | { readonly type: 'done'; readonly output: EngineOutput };

export type EngineEventType = EngineEvent['type'];

/** Every event kind a stream may yield; anything else breaks the contract. */
export const ENGINE_EVENT_TYPES: readonly EngineEventType[] = Object.freeze(['text_delta', 'tool_call_start', 'tool_call_end', 'turn_end', 'done']);

/**
 * What `saveState()` returns and `loadState()` accepts: JSON-serialisable, tagged with the engine
 * that wrote it. An engine refuses a state written by another engine.
 */
export interface EngineState {
  readonly engineId: string;
  readonly version: number;
  /** The conversation the next `stream({ prompt })` continues. */
  readonly messages: readonly Message[];
  /** Model calls made so far; the next call's `callIndex` (deterministic models replay by it). */
  readonly modelCalls: number;
}

export interface EngineAdapter {
  readonly engineId: string;
  /**
   * Runs the agent loop once. One stream at a time per adapter: a second `stream()` started while
   * one is running throws `EngineError` (`engine_busy`) from its first `next()`; invalid input
   * throws `ConfigError` the same way. Breaking out of the stream early cancels the run.
   */
  stream(input: EngineInput): AsyncGenerator<EngineEvent, void, undefined>;
  saveState?(): EngineState;
  /** Throws `EngineError` for another engine's state (`engine_state_mismatch`) or a malformed one. */
  loadState?(state: unknown): void;
}
