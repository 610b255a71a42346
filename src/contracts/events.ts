import type { ErrorCode } from './error-codes.js';
import type { ErrorScope } from './error-scopes.js';
import type { FinishReason } from './model.js';
import type { ForkOrigin } from './fork.js';
import type { GuardrailMode, GuardrailStage } from './guardrails.js';
import type { QueueName } from './queues.js';
import type { StopCondition } from './stop.js';
import type { TurnResult, WorkflowMetrics } from './results.js';
import type { OutputIssue } from './typed-output.js';
import type { ApprovalAnswerObject } from './policy.js';
import type { Usage } from './usage.js';

export type { ErrorScope } from './error-scopes.js';

/** Counters of one task at the moment it stopped. */
export interface TaskCounters {
  readonly turns: number;
  readonly toolCalls: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly costUsd: number;
  readonly runtimeMs: number;
}

interface TaskScoped {
  readonly taskId: string;
  readonly taskIndex: number;
}

interface TurnScoped extends TaskScoped {
  readonly turn: number;
}

export type PolicySubject = 'task' | 'tool';

/**
 * What became of a typed task's answer that did not match its `output` schema: `repair`, it went
 * back to the model with the issues; `stopped`, the task stopped with it (its repairs used up,
 * another stop at the same check, or the answer of the wrap-up call).
 */
export type OutputInvalidOutcome = 'repair' | 'stopped';

/** How a compaction (the turn machine's COMPACT state) ended. */
export type CompactionOutcome = 'compacted' | 'failed' | 'canceled';

/**
 * Every event the kernel emits, before the sink stamps `runId`, `seq` and `at`.
 * Event names pair as start/update/end; tool events pair by `toolCallId`.
 */
export type KernelEventBody =
  | {
      readonly type: 'workflow_start';
      readonly tasks: readonly { readonly id: string; readonly description: string }[];
      readonly resumed: boolean;
      /** Set on the first start of a fork: the run and the point it started from. */
      readonly forkOf?: ForkOrigin;
      /** The W3C `traceparent` of this segment's root span, when traced: a resume continues that trace. */
      readonly traceParent?: string;
    }
  | { readonly type: 'workflow_end'; readonly stop: StopCondition; readonly metrics: WorkflowMetrics }
  | ({ readonly type: 'task_start'; readonly description: string } & TaskScoped)
  | ({ readonly type: 'task_end'; readonly stop: StopCondition; readonly counters: TaskCounters } & TaskScoped)
  | ({ readonly type: 'turn_start' } & TurnScoped)
  | ({ readonly type: 'turn_end'; readonly result: TurnResult } & TurnScoped)
  | ({
      readonly type: 'compaction_start';
      /** Messages in the transcript handed to `compactor.compact`. */
      readonly messagesBefore: number;
    } & TurnScoped)
  | ({
      readonly type: 'compaction_end';
      /** `compacted`: the turn goes on with the new transcript; `failed`: `compact` threw (an `error` event follows, the task ends `error`); `canceled`: the task stopped while it ran. */
      readonly outcome: CompactionOutcome;
      readonly messagesBefore: number;
      /** Messages in the transcript the turn goes on with (`messagesBefore` unless compacted). */
      readonly messagesAfter: number;
    } & TurnScoped)
  | ({
      readonly type: 'output_invalid';
      /** Where and why the answer failed (at most 10, then one counting the rest). */
      readonly issues: readonly OutputIssue[];
      readonly outcome: OutputInvalidOutcome;
      /** Repairs sent to the model in this task so far, this one included. */
      readonly repairs: number;
      /** The answer was the wrap-up call's (`wrapUpOnBound`). */
      readonly wrapUp: boolean;
    } & TurnScoped)
  | ({
      readonly type: 'guardrail_tripped';
      readonly name: string;
      readonly on: GuardrailStage;
      readonly reason: string;
      /** `stop`: the task stops with it; `revise`: the model is told and may try again (docs/guardrails.md). */
      readonly mode: GuardrailMode;
      /** Tool stages: the call refused, or whose result was withheld. */
      readonly toolCallId?: string;
    } & TurnScoped)
  | ({
      readonly type: 'rate_limit_wait';
      /** `provider/modelId` of the limited model. */
      readonly model: string;
      readonly waitMs: number;
      /** What is full: the minute's `requests` or `tokens`, or the provider asked to wait (`retry_after`). */
      readonly reason: 'requests' | 'tokens' | 'retry_after';
    } & TurnScoped)
  | ({ readonly type: 'message_start'; readonly wrapUp: boolean } & TurnScoped)
  | ({ readonly type: 'message_update'; readonly delta: string } & TurnScoped)
  | ({
      readonly type: 'message_end';
      readonly text: string;
      readonly toolCalls: readonly { readonly id: string; readonly name: string; readonly args: unknown }[];
      readonly usage: Usage;
      readonly costUsd: number;
      /** `error`: the call failed; `canceled`: the task stopped while the call was in flight. */
      readonly finishReason: FinishReason | 'error' | 'canceled';
      /** The model that answered, when the provider reported it. */
      readonly responseModelId?: string;
    } & TurnScoped)
  | ({ readonly type: 'tool_execution_start'; readonly toolCallId: string; readonly name: string; readonly args: unknown } & TurnScoped)
  | ({ readonly type: 'tool_execution_update'; readonly toolCallId: string; readonly name: string; readonly progress: unknown } & TurnScoped)
  | ({
      readonly type: 'tool_execution_end';
      readonly toolCallId: string;
      readonly name: string;
      readonly result: unknown;
      readonly isError: boolean;
      readonly executed: boolean;
      readonly replayed: boolean;
      readonly durationMs: number;
      /**
       * The arguments the tool ran with, set when they are not the model's (`tool_execution_start`'s
       * `args`): an approver answered `{ decision: 'approve', args }`.
       */
      readonly executedArgs?: unknown;
    } & TurnScoped)
  | {
      readonly type: 'checkpoint_saved';
      readonly kind: 'task' | 'turn';
      readonly taskId: string;
      readonly taskIndex: number;
      readonly turn?: number;
      /** The saved entry's number in the run's checkpoint history (absent in logs written before it was recorded): a resume checks that the store still holds it (ADR 0302). */
      readonly sequence?: number;
    }
  | {
      readonly type: 'policy_decision';
      readonly subject: PolicySubject;
      readonly taskId: string;
      readonly taskIndex: number;
      readonly toolCallId?: string;
      readonly toolName?: string;
      readonly decision: 'allow' | 'deny' | 'require_approval';
      readonly reason: string;
      readonly approvalId?: string;
      /**
       * The approver's answer that decided it (`allow` or `deny` of a `require_approval` verdict), in
       * its object form: the edited `args` the call runs with, or the `message` the model is given.
       */
      readonly answer?: ApprovalAnswerObject;
      /** Set when the decision waits on a delegated run (`agentTool`) parked for approval: that run. */
      readonly childRunId?: string;
    }
  | { readonly type: 'message_queued'; readonly queue: 'steering' | 'followUp'; readonly id: number; readonly content: string; readonly taskId?: string }
  | { readonly type: 'queue_cleared'; readonly queue: QueueName }
  | { readonly type: 'plan_created'; readonly strategy: PlanStrategyName; readonly version: number; readonly steps: readonly PlanStepView[] }
  | {
      readonly type: 'plan_revised';
      readonly strategy: PlanStrategyName;
      readonly version: number;
      /** The steps still to run under the revised plan. */
      readonly steps: readonly PlanStepView[];
      readonly reason: string;
      /** `step_failed`: a replan (counts against `maxReplans`); `review`: a hybrid revision after a completed step. */
      readonly trigger: 'step_failed' | 'review';
      readonly replansUsed: number;
    }
  | { readonly type: 'strategy_selected'; readonly strategy: 'react' | PlanStrategyName; readonly reason: string; readonly by: 'rules' | 'classifier' }
  | {
      readonly type: 'error';
      readonly scope: ErrorScope;
      /** From the closed `ErrorCode` union (docs/errors.md); the sink sets the scope's code when the emitter names none. */
      readonly code?: ErrorCode;
      readonly message: string;
      readonly taskId?: string;
      readonly taskIndex?: number;
    }
  | { readonly type: 'warning'; readonly message: string; readonly taskId?: string; readonly taskIndex?: number }
  /** A resume, fork or worker took the run up with a changed workflow, on purpose (`acceptChange`): what changed, and which process accepted it. */
  | { readonly type: 'workflow_changed'; readonly changes: readonly string[]; readonly acceptedBy: string };

/** The strategies that plan (src/strategies/); `auto` picks one of them or `react`. */
export type PlanStrategyName = 'plan_execute' | 'hybrid';

/** One step of a plan as events and the audit show it. */
export interface PlanStepView {
  readonly description: string;
}


export interface EventStamp {
  readonly runId: string;
  /** Strictly increasing per run, across resumes. */
  readonly seq: number;
  /** Epoch milliseconds from the injected clock. */
  readonly at: number;
  /**
   * Only on a delegated run's event in an ancestor's stream (`agentTool`): the run ids from that
   * ancestor down to the event's run. The event's own log and listeners never carry it.
   */
  readonly path?: readonly string[];
}

/** A stamped `error` event always carries its code. */
type Stamped<T> = T extends { readonly type: 'error' } ? T & EventStamp & { readonly code: ErrorCode } : T extends unknown ? T & EventStamp : never;

export type KernelEvent = Stamped<KernelEventBody>;
export type KernelEventType = KernelEvent['type'];
