/**
 * The tools port: what the tool layer needs to run a turn's tool calls. The kernel composes it
 * from its options (ADR/0241); nothing here knows the kernel.
 */
import type { ToolResultRecordings } from './tool-result-recordings.js';
import type { Clock } from '../contracts/clock.js';
import type { KernelEventBody } from '../contracts/events.js';
import type { AfterToolCall, BeforeToolCall } from '../contracts/hooks.js';
import type { Limits } from '../contracts/limits.js';
import type { ApprovalAnswer, PolicyGate } from '../contracts/policy.js';
import type { CheckpointStore } from '../contracts/store.js';
import type { ToolSource } from '../contracts/tool.js';
import type { DelegateCall } from '../contracts/delegation.js';
import type { TaskAtCall } from '../contracts/turn-protocol.js';
import type { Usage } from '../contracts/usage.js';
import type { ToolCatalog } from './run-tools.js';

/** `sequential` (source order), `parallel` (all at once) or `batch` (tools marked `parallel` together). */
export type ToolExecution = 'sequential' | 'parallel' | 'batch';

/** The tools of a kernel and how their calls run. */
export interface ToolPort {
  /** The kernel's own tools (`defineTool`), and what the model is told about them. */
  readonly own: ToolCatalog;
  /**
   * Tool sources (`mcpTools`) each run opens at its first need and closes when it ends; a run's
   * tools are `own` plus theirs (`RunTools`, ADR/0143).
   */
  readonly sources: readonly ToolSource[];
  readonly execution: ToolExecution;
  /** Most calls running at once in `parallel` and `batch` modes. */
  readonly concurrency: number;
  readonly beforeToolCall: BeforeToolCall | undefined;
  readonly afterToolCall: AfterToolCall | undefined;
  /** Size and shape limits on results and arguments, and on the model text that asks for them (the model caller reads them here too). */
  readonly limits: Limits;
}

/** Everything a tool call needs besides its run: the tools, the clock, the policy gate, the redactor. */
export interface ToolCallDeps {
  readonly tools: ToolPort;
  readonly clock: Clock;
  readonly policy: PolicyGate;
  /** Replaces secrets in a result before anyone sees or records it (ADR/0100). */
  readonly redactor: { value<T>(value: T): T };
}

/** The run a tool call belongs to, as the tool layer sees it. */
export interface ToolRun {
  readonly runId: string;
  /** Answers to parked approvals, given to `resume`. */
  readonly approvals: ReadonlyMap<string, ApprovalAnswer>;
  /** True when resuming: a recorded result is replayed instead of running the tool again. */
  readonly resumed: boolean;
  readonly store: Pick<CheckpointStore, 'getToolResult' | 'recordToolResult'>;
  /** The run's recorded results still being written: awaited before each tool runs (ADR/0492). */
  readonly recordings: ToolResultRecordings;
  /**
   * Resolves when this process still holds the run; rejects when it lost it (the run is then
   * stopped). Awaited before each tool runs, so that a process paused past its lease does not run
   * a tool the run's new holder may have run (ADR/0320).
   */
  confirmLease(): Promise<void>;
  emit(body: KernelEventBody): void;
  /** The run's ledger: what a call's guardrails spend is charged here as they spend it. */
  readonly spend?: { charge(usage: Usage, costUsd: number): void };
  /** Delegation (`agentTool`): runs a call's child run; absent where runs cannot delegate. */
  delegate?(call: DelegatingCall): DelegateCall;
}

/** The call of an agent tool: its place in the run and its signal (cancelling it cancels the child). */
export interface DelegatingCall {
  readonly toolCallId: string;
  readonly taskId: string;
  readonly taskIndex: number;
  readonly turn: number;
  readonly position: number;
  readonly signal: AbortSignal;
  /** The task as the turn's calls find it: its bounds and spend so far, its deadline. */
  readonly task: TaskAtCall;
}
