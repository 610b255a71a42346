/**
 * The protocol between the workflow machine (machines/workflow.machine.ts) and the actors the
 * composition root provides to it.
 */
import type { OuterBounds } from './bounds.js';
import { EMPTY_QUEUES, type MessageQueues, type QueuedMessage, type QueueName } from './queues.js';
import { EMPTY_METRICS, type TaskResult, type WorkflowMetrics } from './results.js';
import type { StopCondition } from './stop.js';
import type { TaskResumePoint, TaskSpec, TurnSettings } from './turn-protocol.js';

export type OnTaskStop = 'halt' | 'continue';

export interface WorkflowSettings {
  readonly onTaskStop: OnTaskStop;
  readonly turn: TurnSettings;
}

/** A task that was cut and continues from its last completed turn (resume). */
export interface ActiveTask {
  readonly task: TaskSpec;
  readonly point: TaskResumePoint;
}

/** Everything a resume continues from; also what a fresh run starts from (empty). */
export interface WorkflowProgress {
  readonly results: readonly TaskResult[];
  readonly metrics: WorkflowMetrics;
  readonly queues: MessageQueues;
  readonly modelCallIndex: number;
  readonly elapsedMs: number;
  readonly active?: ActiveTask;
  /** Strategy state (plans, replans used); opaque to the machine. */
  readonly strategy?: unknown;
}

/** Where a new run starts: nothing done yet. */
export const EMPTY_PROGRESS: WorkflowProgress = Object.freeze({ results: [], metrics: EMPTY_METRICS, queues: EMPTY_QUEUES, modelCallIndex: 0, elapsedMs: 0 });

export interface WorkflowInput {
  readonly runId: string;
  readonly bounds: OuterBounds;
  readonly settings: WorkflowSettings;
  readonly progress: WorkflowProgress;
  /** Clock time at which this run segment started. */
  readonly startedAt: number;
}

export interface WorkflowContext {
  readonly runId: string;
  readonly bounds: OuterBounds;
  readonly settings: WorkflowSettings;
  readonly results: readonly TaskResult[];
  readonly metrics: WorkflowMetrics;
  /** Metrics of the tasks a resume will not run again (all but a halted task). */
  readonly committedMetrics: WorkflowMetrics;
  readonly queues: MessageQueues;
  readonly modelCallIndex: number;
  readonly startedAt: number;
  readonly elapsedBeforeMs: number;
  readonly strategy?: unknown;
  /** The task picked at TASK_SELECT, or restored on resume. */
  readonly active?: ActiveTask;
  /**
   * The last task, when the workflow stops on it for a resumable reason (cancel, approval, error,
   * session deadline): a resume runs it again from its resume point, so it is not committed.
   */
  readonly halted?: ActiveTask;
  /** A cancel or deadline that arrived while a task ran; the workflow ends with it. */
  readonly pendingStop?: StopCondition;
  readonly stop?: StopCondition;
  /** Clock time carried by the last actor output or event. */
  readonly lastAt: number;
}

export interface WorkflowOutput {
  readonly stop: StopCondition;
  readonly results: readonly TaskResult[];
  readonly metrics: WorkflowMetrics;
  readonly queues: MessageQueues;
  readonly modelCallIndex: number;
  readonly halted?: ActiveTask;
  readonly strategy?: unknown;
}

// ---- actor inputs and outputs ----

export interface TaskSourceInput {
  readonly runId: string;
  readonly results: readonly TaskResult[];
  readonly metrics: WorkflowMetrics;
  /** The executor model's call index (`model`): a planner that is the same model continues it. */
  readonly modelCallIndex: number;
  readonly queues: MessageQueues;
  readonly strategy?: unknown;
}

/**
 * Model calls a strategy made while picking (planning, replanning, reviewing, classifying).
 * Each call counts as a turn of the workflow and its usage as workflow usage.
 */
export interface StrategySpend {
  readonly turns: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly costUsd: number;
}

/**
 * The next task, or why there is none. `strategy` is the strategy's updated state; `spent` and
 * `modelCallIndex` (the executor's index after calls the strategy made on the executor model)
 * are set when the strategy called a model.
 */
export type TaskSourceOutput = (
  | { readonly kind: 'task'; readonly active: ActiveTask; readonly strategy?: unknown }
  | { readonly kind: 'stop'; readonly stop: StopCondition; readonly strategy?: unknown }
) & { readonly spent?: StrategySpend; readonly modelCallIndex?: number };

export interface TaskGateInput {
  readonly runId: string;
  readonly task: TaskSpec;
  readonly metrics: WorkflowMetrics;
}

/** `at`: clock time of the decision; the task's clock starts there. */
export type GateDecision =
  | { readonly decision: 'allow'; readonly at: number }
  | { readonly decision: 'deny' | 'require_approval'; readonly stop: StopCondition; readonly at: number };

export interface CheckpointInput {
  readonly runId: string;
  readonly progress: WorkflowProgress;
  readonly task: TaskResult;
}

export interface OuterStopInput {
  readonly runId: string;
  readonly bounds: OuterBounds;
  readonly results: readonly TaskResult[];
  readonly metrics: WorkflowMetrics;
  readonly settings: WorkflowSettings;
  readonly strategy?: unknown;
  readonly elapsedBeforeMs: number;
  readonly startedAt: number;
}

export interface OuterStopOutput {
  readonly stop?: StopCondition;
  readonly at: number;
}

export type WorkflowEvent =
  | { readonly type: 'ABORT'; readonly stop: StopCondition }
  | { readonly type: 'STEER'; readonly message: QueuedMessage }
  | { readonly type: 'FOLLOW_UP'; readonly message: QueuedMessage }
  | { readonly type: 'CLEAR_QUEUE'; readonly queue: QueueName };
