/**
 * Pure functions the workflow machine uses in its `assign` actions. No effects, no clock.
 */
import { mergeQueues, withoutIds } from '../contracts/queues.js';
import type { TaskResult, WorkflowMetrics } from '../contracts/results.js';
import type { StopCondition } from '../contracts/stop.js';
import { isResumableStop } from '../contracts/stop-rules.js';
import type { TurnInput, TurnOutput } from '../contracts/turn-protocol.js';
import type {
  ActiveTask,
  StrategySpend,
  TaskSourceOutput,
  WorkflowContext,
  WorkflowInput,
  WorkflowOutput,
  WorkflowProgress,
} from '../contracts/workflow-protocol.js';

export function initialWorkflowContext(input: WorkflowInput): WorkflowContext {
  const { progress } = input;
  return {
    runId: input.runId,
    bounds: input.bounds,
    settings: input.settings,
    results: progress.results,
    metrics: progress.metrics,
    committedMetrics: progress.metrics,
    queues: progress.queues,
    modelCallIndex: progress.modelCallIndex,
    startedAt: input.startedAt,
    elapsedBeforeMs: progress.elapsedMs,
    lastAt: input.startedAt,
    strategy: progress.strategy,
    active: progress.active,
    halted: undefined,
    pendingStop: undefined,
    stop: undefined,
  };
}

export function turnInputFor(context: WorkflowContext, active: ActiveTask): TurnInput {
  const { metrics, bounds } = context;
  return {
    runId: context.runId,
    task: active.task,
    settings: context.settings.turn,
    budget: {
      tokensBefore: metrics.inputTokens + metrics.outputTokens,
      costBefore: metrics.costUsd,
      ...(bounds.maxTokens === undefined ? {} : { maxTokens: bounds.maxTokens }),
      ...(bounds.maxCostUsd === undefined ? {} : { maxCostUsd: bounds.maxCostUsd }),
    },
    progress: active.point.progress,
    // The workflow's queues are authoritative: messages queued between tasks go to the next one.
    queues: context.queues,
    modelCallIndex: context.modelCallIndex,
    startedAt: context.lastAt,
  };
}

function addTask(metrics: WorkflowMetrics, result: TaskResult, runtimeMs: number): WorkflowMetrics {
  return {
    workflowSteps: metrics.workflowSteps + 1,
    turns: metrics.turns + result.turnCount,
    toolCalls: metrics.toolCalls + result.toolCalls,
    inputTokens: metrics.inputTokens + result.usage.inputTokens,
    outputTokens: metrics.outputTokens + result.usage.outputTokens,
    costUsd: metrics.costUsd + result.costUsd,
    runtimeMs,
  };
}

/** TASK_EXECUTE done: keep the result, sum the metrics, drop delivered queue messages. */
export function recordTask(context: WorkflowContext, output: TurnOutput): Partial<WorkflowContext> {
  const { result } = output;
  const runtimeMs = elapsedAt(context, result.stop.at);
  const active = context.active;
  const workflowStopsHere = context.settings.onTaskStop === 'halt' || context.pendingStop !== undefined;
  const halted =
    active !== undefined && workflowStopsHere && isResumableStop(result.stop.reason) ? { task: active.task, point: output.resumePoint } : undefined;
  const metrics = addTask(context.metrics, result, runtimeMs);
  return {
    results: [...context.results, result],
    metrics,
    committedMetrics: halted === undefined ? metrics : context.committedMetrics,
    queues: withoutIds(context.queues, new Set(output.delivered)),
    modelCallIndex: output.modelCallIndex,
    active: undefined,
    halted,
    lastAt: Math.max(context.lastAt, result.stop.at),
  };
}

/** The model calls a strategy made while picking: turns, tokens and cost of the workflow. */
export function addSpend(metrics: WorkflowMetrics, spent: StrategySpend | undefined): WorkflowMetrics {
  if (spent === undefined) return metrics;
  return {
    ...metrics,
    turns: metrics.turns + spent.turns,
    inputTokens: metrics.inputTokens + spent.inputTokens,
    outputTokens: metrics.outputTokens + spent.outputTokens,
    costUsd: metrics.costUsd + spent.costUsd,
  };
}

/**
 * TASK_SELECT.PICK done: keep the strategy's state and what its model calls spent. Reaching
 * TASK_SELECT means the workflow did not stop on the last task (a plan strategy replans a failed
 * step instead), so that task is committed: it no longer counts as halted.
 */
export function recordPick(context: WorkflowContext, output: TaskSourceOutput): Partial<WorkflowContext> {
  const metrics = addSpend(context.metrics, output.spent);
  return {
    strategy: output.strategy,
    metrics,
    committedMetrics: metrics,
    halted: undefined,
    modelCallIndex: output.modelCallIndex ?? context.modelCallIndex,
    ...(output.kind === 'task' ? { active: output.active } : { stop: output.stop }),
  };
}

export function elapsedAt(context: WorkflowContext, at: number): number {
  return context.elapsedBeforeMs + Math.max(0, at - context.startedAt);
}

/**
 * The checkpoint at a task boundary. A halted task is not committed: its result and metrics stay
 * out, it becomes the active task with the queues it had not delivered (plus any queued since),
 * and the model-call index goes back to its resume point so that a replay is identical.
 */
export function progressOf(context: WorkflowContext): WorkflowProgress {
  const { halted } = context;
  const base = { elapsedMs: context.metrics.runtimeMs, ...(context.strategy === undefined ? {} : { strategy: context.strategy }) };
  if (halted === undefined) {
    return { ...base, results: context.results, metrics: context.metrics, queues: context.queues, modelCallIndex: context.modelCallIndex };
  }
  return {
    ...base,
    results: context.results.slice(0, -1),
    metrics: context.committedMetrics,
    queues: mergeQueues(halted.point.queues, context.queues),
    modelCallIndex: halted.point.modelCallIndex,
    active: halted,
  };
}

export function remainingSessionMs(context: WorkflowContext): number {
  return Math.max(0, context.bounds.maxSessionRuntimeMs - context.elapsedBeforeMs);
}

export function sessionDeadlineStop(context: WorkflowContext): StopCondition {
  const limit = context.bounds.maxSessionRuntimeMs;
  return {
    reason: 'max_session_runtime',
    detail: `session runtime reached maxSessionRuntimeMs=${limit}`,
    bound: { name: 'maxSessionRuntimeMs', limit, value: limit },
    at: context.startedAt + remainingSessionMs(context),
  };
}

export function workflowOutput(context: WorkflowContext): WorkflowOutput {
  const stop = context.stop ?? { reason: 'error' as const, code: 'internal_error' as const, detail: 'internal: workflow ended without a stop condition', at: context.startedAt };
  return {
    stop,
    results: context.results,
    metrics: { ...context.metrics, runtimeMs: Math.max(context.metrics.runtimeMs, elapsedAt(context, stop.at)) },
    queues: context.queues,
    modelCallIndex: context.modelCallIndex,
    ...(context.halted === undefined ? {} : { halted: context.halted }),
    ...(context.strategy === undefined ? {} : { strategy: context.strategy }),
  };
}
