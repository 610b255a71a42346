import { FailureError } from '../errors.js';
import type { Model, RateLimit } from '../contracts/model.js';
import type { RateWindow } from '../providers/rate-limited-call.js';
import type { KernelEvent, KernelEventBody } from '../contracts/events.js';
import type { OuterBounds } from '../contracts/bounds.js';
import type { DelegateCall } from '../contracts/delegation.js';
import type { DelegatingCall } from '../tools/tool-port.js';
import type { ApprovalAnswer } from '../contracts/policy.js';
import type { CheckpointStore } from '../contracts/store.js';
import type { TaskSpec } from '../contracts/turn-protocol.js';
import type { CheckpointWriter } from '../checkpoint/checkpoint-writer.js';
import type { EventSink } from '../events/event-sink.js';
import type { RunTools } from '../tools/run-tools.js';
import type { ToolResultRecordings } from '../tools/tool-result-recordings.js';
import type { CallIndexes } from './call-indexes.js';
import type { SpendLedger } from './spend-ledger.js';
import type { ToolStartLedger } from './tool-start-ledger.js';

/**
 * What the services of one run share, looked up by `runId` from the machines' context.
 * Lives in the kernel's registry (never module state) for the duration of the run.
 */
export interface RunRuntime {
  readonly runId: string;
  readonly events: EventSink;
  /** The workflow's fixed task list (the `react` strategy walks it in order). */
  readonly tasks: readonly TaskSpec[];
  /** Answers to parked approvals, given to `resume`. */
  readonly approvals: ReadonlyMap<string, ApprovalAnswer>;
  /** True when resuming: recorded tool results are looked up before running a tool. */
  readonly resumed: boolean;
  readonly store: CheckpointStore;
  /** Tool results handed to the store and not yet committed (ADR/0492). */
  readonly recordings: ToolResultRecordings;
  /** Aborts when the run ends or is aborted; for calls outside a task (policy, outer evaluators). */
  readonly signal: AbortSignal;
  /** Writes the run's checkpoints, in order: the only writer of its history (ADR/0120). */
  readonly checkpoints: CheckpointWriter;
  /** The run's tools: the kernel's, plus its tool sources' once opened (at first need). */
  readonly tools: RunTools;
  /** Started calls of the running batches not reported to their tasks yet (ADR/0393). */
  readonly toolStarts: ToolStartLedger;
  /** Tokens and cost of the whole run, every running task's calls charged as they answer. */
  readonly spend: SpendLedger;
  /** Where a rate-limited model's window lives for this run: the process's, or the store's with `shared: true`. */
  rateWindow(model: Model, limit: RateLimit): RateWindow;
  /** The next model call's index: one count for every task of the run, so that parallel tasks never share one. */
  readonly callIndexes: CallIndexes;
  /** The run's outer bounds, and the clock time its session deadline fires. */
  readonly outerBounds: OuterBounds;
  readonly sessionDeadlineAt: number;
  /** Delegation levels above this run: 0 for a run started by the caller (`agentTool`). */
  readonly depth: number;
  /** Hands a delegated run's event to this run's stream (not its log: the child's own log has it). */
  relay(event: KernelEvent): void;
  /** Runs an agent tool call's child run (`agentTool`). */
  delegate?(call: DelegatingCall): DelegateCall;
  /** A traced run: the open `execute_tool` span of a call as a `traceparent`, under which the call's child run is traced. */
  toolTraceParent?(toolCallId: string): string | undefined;
  /** Resolves while this process still holds the run's lease (src/kernel/run-lease.ts `confirm`). */
  confirmLease(): Promise<void>;
  emit(body: KernelEventBody): void;
}

export type RunRegistry = Map<string, RunRuntime>;

export function runtimeOf(registry: RunRegistry, runId: string): RunRuntime {
  const runtime = registry.get(runId);
  if (runtime === undefined) throw new FailureError({ code: 'internal_error', message: `internal: no runtime registered for run ${runId}` });
  return runtime;
}
