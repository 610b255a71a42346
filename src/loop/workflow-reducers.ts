/**
 * Pure functions the workflow machine uses in its `assign` actions. No effects, no clock.
 */
import { withoutIds } from '../contracts/queues.js';
import type { TaskResult, WorkflowMetrics } from '../contracts/results.js';
import { isNaturalCompletion, type StopCondition } from '../contracts/stop.js';
import type { TurnInput, TurnOutput } from '../contracts/turn-protocol.js';
import type { ActiveTask, WorkflowContext, WorkflowInput, WorkflowOutput, WorkflowProgress } from '../contracts/workflow-protocol.js';

export function initialWorkflowContext(input: WorkflowInput): WorkflowContext {
  const { progress } = input;
  return {
    runId: input.runId,
    bounds: input.bounds,
    settings: input.settings,
    results: progress.results,
    metrics: progress.metrics,
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
  const halted =
    active !== undefined && !isNaturalCompletion(result.stop.reason) ? { task: active.task, point: output.resumePoint } : undefined;
  return {
    results: [...context.results, result],
    metrics: addTask(context.metrics, result, runtimeMs),
    queues: withoutIds(context.queues, new Set(output.delivered)),
    modelCallIndex: output.modelCallIndex,
    active: undefined,
    halted,
    lastAt: Math.max(context.lastAt, result.stop.at),
  };
}

export function elapsedAt(context: WorkflowContext, at: number): number {
  return context.elapsedBeforeMs + Math.max(0, at - context.startedAt);
}

export function progressOf(context: WorkflowContext): WorkflowProgress {
  return {
    results: context.results,
    metrics: context.metrics,
    queues: context.queues,
    modelCallIndex: context.modelCallIndex,
    elapsedMs: context.metrics.runtimeMs,
    ...(context.halted === undefined ? {} : { active: context.halted }),
    ...(context.strategy === undefined ? {} : { strategy: context.strategy }),
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
  const stop = context.stop ?? { reason: 'error', detail: 'internal: workflow ended without a stop condition', at: context.startedAt };
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
