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
  /**
   * The tasks form a graph (some task has `dependsOn` or `forEach`): a task that stops early
   * stops only the tasks that wait for it, and several may run at once. A list runs one task
   * after the other, and a task that stops early stops the workflow (`onTaskStop: 'halt'`).
   */
  readonly graph: boolean;
  /** Most tasks running at once: `maxParallelTasks` for a graph, 1 for a list or a plan strategy. */
  readonly maxParallelTasks: number;
}

/** A task that was cut and continues from its last completed turn (resume). */
export interface ActiveTask {
  readonly task: TaskSpec;
  readonly point: TaskResumePoint;
}

/**
 * Everything a resume continues from; also what a fresh run starts from (empty). A list run has
 * at most one running task (`active`); a graph run keeps every task that runs, or stopped for a
 * resumable reason, in `branches` (checkpoint version 3, ADR/0420).
 */
export interface WorkflowProgress {
  readonly results: readonly TaskResult[];
  readonly metrics: WorkflowMetrics;
  readonly queues: MessageQueues;
  readonly modelCallIndex: number;
  readonly elapsedMs: number;
  readonly active?: ActiveTask;
  readonly branches?: readonly ActiveTask[];
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

/**
 * The tasks between TASK_SELECT and the checkpoint of their end. `picked`: chosen at PICK, waiting
 * for the policy gate; `running`: a turn machine runs each (as it started); `finished`: ended (their
 * results recorded), each owing one CHECKPOINT and NEXT_TASK; `halted`: ended for a resumable
 * reason — a resume runs them again from their resume points, so they are not committed.
 */
export interface Branches {
  readonly picked: readonly ActiveTask[];
  readonly running: readonly ActiveTask[];
  readonly finished: readonly string[];
  readonly halted: readonly ActiveTask[];
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
  /** Tasks picked, running, ended and halted; restored ones start running at INIT. */
  readonly branches: Branches;
  /** A cancel, deadline or outer stop that arrived while tasks ran; the workflow ends with it once they reported. */
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
  readonly strategy?: unknown;
}

// ---- actor inputs and outputs ----

export interface TaskSourceInput {
  readonly runId: string;
  readonly results: readonly TaskResult[];
  /** Ids of the tasks running, picked or halted now (a graph picks among the others). */
  readonly busy: readonly string[];
  /** How many more tasks may start now (`maxParallelTasks` less those running or picked). */
  readonly slots: number;
  /** Tasks running now. */
  readonly running: number;
  /** The workflow's `maxWorkflowSteps` (tasks that ran and run count as steps). */
  readonly maxWorkflowSteps: number;
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
  /**
   * A graph's ready tasks (at most `slots`), and tasks that end without running (`settled`: a
   * dependency that failed, a fan-out whose items all ended, one with too many items). Both empty:
   * nothing to do until a running task ends.
   */
  | { readonly kind: 'ready'; readonly start: readonly ActiveTask[]; readonly settled: readonly TaskResult[]; readonly strategy?: unknown }
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
  /** A graph's branches that stopped for a resumable reason: their points in `progress` are final (the others' are where they started). */
  readonly halted: readonly string[];
}

export interface OuterStopInput {
  readonly runId: string;
  /** Tasks still running (a graph's other branches): a stop decided now cancels them. */
  readonly running: number;
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
