/**
 * Pure functions the workflow machine uses in its `assign` actions. No effects, no clock. The
 * tasks between TASK_SELECT and their checkpoint are src/loop/branch-reducers.ts's.
 */
import { mergeQueues, queuesFor } from '../contracts/queues.js';
import { isResumableStop } from '../contracts/stop-rules.js';
import type { StopCondition } from '../contracts/stop.js';
import type { TurnInput } from '../contracts/turn-protocol.js';
import type { ActiveTask, WorkflowContext, WorkflowInput, WorkflowOutput, WorkflowProgress } from '../contracts/workflow-protocol.js';
import { elapsedAt, listHaltedProgress, NO_BRANCHES } from './branch-reducers.js';

export function initialWorkflowContext(input: WorkflowInput): WorkflowContext {
  const { progress } = input;
  // A resume restores the tasks that were running (or halted): they start at INIT.
  const restored = progress.active !== undefined ? [progress.active] : (progress.branches ?? []);
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
    branches: restored.length === 0 ? NO_BRANCHES : { ...NO_BRANCHES, running: restored },
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
    // A list: the workflow's queues are authoritative, messages queued between tasks go to the
    // next one. A graph's task takes the waiting messages for it, with those it had (a resume).
    queues: context.settings.graph ? mergeQueues(active.point.queues, queuesFor(context.queues, active.task.id)) : queuesFor(context.queues, active.task.id),
    modelCallIndex: Math.max(context.modelCallIndex, active.point.modelCallIndex),
    startedAt: context.lastAt,
  };
}

/**
 * The checkpoint at a task boundary. A list's halted task is its active task
 * (`listHaltedProgress`). A graph keeps every running task and every halted one in `branches`
 * (the running ones as they started: the checkpoint writer has their latest turns) and commits
 * only results that will not run again: a task halted or parked at the policy gate runs again on
 * resume (a parked one is asked again, so it is not among the branches).
 */
export function progressOf(context: WorkflowContext): WorkflowProgress {
  const { branches } = context;
  const base = { elapsedMs: context.metrics.runtimeMs, ...(context.strategy === undefined ? {} : { strategy: context.strategy }) };
  if (!context.settings.graph) {
    const halted = branches.halted[0];
    if (halted !== undefined) return { ...base, ...listHaltedProgress(context, halted) };
    return { ...base, results: context.results, metrics: context.metrics, queues: context.queues, modelCallIndex: context.modelCallIndex };
  }
  const kept = [...branches.running, ...branches.halted];
  return {
    ...base,
    results: context.results.filter((result) => !isResumableStop(result.stop.reason)),
    metrics: context.committedMetrics,
    queues: context.queues,
    modelCallIndex: context.modelCallIndex,
    ...(kept.length === 0 ? {} : { branches: kept }),
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
    ...(context.strategy === undefined ? {} : { strategy: context.strategy }),
  };
}
