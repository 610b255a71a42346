import type { z } from 'zod';
import type { DelegatedRun } from './delegation.js';
import type { GuardrailSpend, GuardrailTrip } from './guardrails.js';

export type ToolExecutionMode = 'sequential' | 'parallel';

/** What a tool's `execute` receives beside its validated arguments. */
export interface ToolExecutionContext {
  /** Aborts on the tool's own timeout, the task or session deadline, or cancellation. */
  readonly signal: AbortSignal;
  readonly toolCallId: string;
  readonly runId: string;
  readonly taskId: string;
  /** Reports progress; each call becomes a `tool_execution_update` event. */
  readonly update: (progress: unknown) => void;
}

const TERMINATE = Symbol.for('dualloop.terminate');

/** A tool return value that also asks the task to end (`tool_terminated` when every call of the turn asks). */
export interface TerminatingOutput {
  readonly [TERMINATE]: true;
  readonly value: unknown;
}

/** Wraps a tool's return value to ask the kernel to end the task after this turn. */
export function terminate(value: unknown): TerminatingOutput {
  return { [TERMINATE]: true, value };
}

export function isTerminatingOutput(value: unknown): value is TerminatingOutput {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[TERMINATE] === true;
}

export interface ToolDefinition<Schema extends z.ZodType = z.ZodType> {
  readonly name: string;
  readonly description: string;
  readonly parameters: Schema;
  /**
   * Runs the tool. It may throw or reject: the error becomes an error result the model sees.
   * Return any JSON-serialisable value, or `terminate(value)` to end the task after this turn.
   */
  readonly execute: (args: z.output<Schema>, context: ToolExecutionContext) => unknown;
  /** Per-call timeout; when it passes the call's signal aborts and the model sees a timeout error. */
  readonly timeoutMs?: number;
  /** `parallel` tools may run together in `batch` mode; default `sequential`. */
  readonly executionMode?: ToolExecutionMode;
  /**
   * The tool's version, kept in a run's fingerprint: a resume after its description or parameters
   * changed is refused (`workflow_changed`) unless the version is the same — the author vouches the
   * change is compatible — or the change is accepted (docs/operations.md).
   */
  readonly version?: string;
}

/** A tool after `defineTool`: validated once, with its JSON Schema computed once. */
export interface Tool<Schema extends z.ZodType = z.ZodType> extends ToolDefinition<Schema> {
  readonly jsonSchema: Readonly<Record<string, unknown>>;
  /** Credentials this tool was configured with (an MCP server's headers): the kernel redacts them (ADR/0100). */
  readonly secrets?: readonly string[];
}

/** The outcome of one tool call, as recorded (keyed by `toolCallId`) and replayed on resume. */
/** A tool call's place in a run: task, turn, and position in the model's answer (0-based). */
export interface ToolCallPlace {
  readonly taskIndex: number;
  readonly turn: number;
  readonly position: number;
}

export interface ToolResult {
  readonly toolCallId: string;
  readonly name: string;
  /** The arguments the tool ran with (validated); the model's for a call that did not run. */
  readonly args: unknown;
  /** The model's arguments, set when the call ran with others: an approver's edit (`{ decision: 'approve', args }`). */
  readonly proposedArgs?: unknown;
  /** The JSON value returned by the tool, or the error message when `isError`. */
  readonly result: unknown;
  readonly isError: boolean;
  /** The tool asked to end the task. */
  readonly terminate: boolean;
  /** What the model sees: the result as text (JSON unless the tool returned a string). */
  readonly content: string;
  /** False when the call was refused before running (bound, unknown tool, invalid arguments, policy, hook). */
  readonly executed: boolean;
  /** False only for calls refused because the tool-call bound was already used up. */
  readonly usedSlot: boolean;
  /** True when this result was read back from the store instead of running the tool again. */
  readonly replayed?: boolean;
  /**
   * Where the kernel ran the call, in the copy it records (`recordToolResult`): its task, turn and
   * place in the model's answer. A resume replays a recorded result only for the call at that very
   * place, since a model may use one id for several calls (ADR 0304).
   */
  readonly at?: ToolCallPlace;
  /** An agent tool's call (`agentTool`): the child run and what it spent, which counts as its task's. */
  readonly delegated?: DelegatedRun;
  /** A tool-call guardrail refused the call, or a tool-result guardrail withheld its result (docs/guardrails.md). */
  readonly guardrail?: GuardrailTrip;
  /** What the call's guardrails spent (`context.charge`, a judge's model call): it counts as the task's. */
  readonly charged?: GuardrailSpend;
  /** Set when a policy gate refused the call or asked for approval (the call did not run). */
  readonly policy?: {
    readonly decision: 'deny' | 'require_approval';
    readonly reason: string;
    readonly halt?: boolean;
    readonly approvalId?: string;
  };
}

/**
 * Tools that exist only while a run runs, such as an MCP server's (`mcpTools`), given in the
 * kernel's `tools` option beside ordinary tools. The kernel opens the source the first time a run
 * needs its tools — before the run's first model call, so that call already lists them — and
 * closes what it opened when the run ends, however it ends (completed, stopped, parked, cancelled).
 * Each run opens its own: runs of one kernel share nothing.
 */
export interface ToolSource {
  readonly kind: 'tool_source';
  /** Names the source in errors and in the options digest (e.g. `mcp:everything,web`). */
  readonly name: string;
  /** Credentials the source was configured with, known before it opens: the kernel redacts them (ADR/0100). */
  readonly secrets?: readonly string[];
  /**
   * Starts what the tools need and lists them. Rejects, naming what failed, when it cannot: the
   * run's task then ends `error` (code `tool_failed`), never hangs. `signal` aborts when the run
   * ends; an open still in progress must then give up and leave nothing running.
   */
  open(context: ToolSourceContext): Promise<OpenedToolSource>;
}

export interface ToolSourceContext {
  readonly runId: string;
  readonly signal: AbortSignal;
}

/** What an opened source gives the run: its tools, and how to release what backs them. */
export interface OpenedToolSource {
  readonly tools: readonly Tool[];
  /** Called once, when the run ends. Must settle in bounded time and should not reject. */
  close(): Promise<void>;
}

export function isToolSource(value: unknown): value is ToolSource {
  return typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'tool_source';
}
