import type { FinishReason } from './model.js';
import type { StopCondition } from './stop.js';
import type { TaskOutputs } from './task-outputs.js';
import type { Usage } from './usage.js';

/** Type-only key: no result holds it at run time. */
declare const outputTypes: unique symbol;

export interface TurnToolCall {
  readonly id: string;
  readonly name: string;
  /** The arguments the tool ran with; the model's for a call that did not run. */
  readonly args: unknown;
  /** The model's arguments, set when an approver edited them (`{ decision: 'approve', args }`): `args` are the edit. */
  readonly proposedArgs?: unknown;
  readonly result: unknown;
  readonly isError: boolean;
}

export interface TurnResult {
  /** 1-based turn number within the task. */
  readonly turn: number;
  readonly assistantText: string;
  readonly toolCalls: readonly TurnToolCall[];
  /** Set on the turn that ended the task. */
  readonly stop?: StopCondition;
  readonly usage: Usage;
  readonly costUsd: number;
  readonly runtimeMs: number;
}

export interface TaskResult {
  readonly taskId: string;
  /** 0-based position in the workflow. */
  readonly index: number;
  readonly description: string;
  readonly stop: StopCondition;
  readonly turns: readonly TurnResult[];
  readonly turnCount: number;
  /** Tool calls that used a slot of the tool-call bound (executed or refused after the bound check). */
  readonly toolCalls: number;
  /**
   * The final assistant text (the wrap-up answer when there was one, else the last turn's text);
   * for a task with an `output` schema, the parsed value that matched it (`undefined` when none
   * did); for a `forEach` task, the array of its items' outputs in item order.
   */
  readonly output: unknown;
  readonly usage: Usage;
  readonly costUsd: number;
  readonly runtimeMs: number;
  /** The extra tool-less call made by `wrapUpOnBound`; recorded, not counted as a turn. */
  readonly wrapUp?: WrapUpResult;
  /**
   * A `forEach` task's items that stopped early (with `forEachFailure: 'collect'`, the task still
   * completes; their places in `output` are `null`). The items' own results are in the run's tasks.
   */
  readonly failedItems?: readonly { readonly taskId: string; readonly stop: StopCondition }[];
}

/** The wrap-up call: numbered like the turn it followed. */
export interface WrapUpResult extends TurnResult {
  /**
   * How the call ended: the model's finish reason, `error` when it failed (its `error` event says
   * why), `canceled` when the task stopped during it. Absent in results stored before it was recorded.
   */
  readonly finishReason?: FinishReason | 'error' | 'canceled';
}

export interface WorkflowMetrics {
  readonly workflowSteps: number;
  readonly turns: number;
  readonly toolCalls: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly costUsd: number;
  readonly runtimeMs: number;
}

/**
 * A run's outcome. `Outputs` types the tasks' outputs by id when the tasks were given as a literal
 * (`taskOutput(result, id)` reads one); without it any id is allowed and outputs are `unknown`.
 */
export interface WorkflowResult<Outputs extends TaskOutputs = TaskOutputs> {
  readonly runId: string;
  readonly stop: StopCondition;
  readonly tasks: readonly TaskResult[];
  readonly metrics: WorkflowMetrics;
  /** Type-only (never present): the outputs' types by task id. */
  readonly [outputTypes]?: Outputs;
}

export const EMPTY_METRICS: WorkflowMetrics = Object.freeze({
  workflowSteps: 0,
  turns: 0,
  toolCalls: 0,
  inputTokens: 0,
  outputTokens: 0,
  costUsd: 0,
  runtimeMs: 0,
});
