/**
 * The built-in stop conditions of the outer loop, checked at NEXT_TASK. The halt rule comes
 * first and is not a competing candidate: a task that stopped for anything but natural
 * completion ends the workflow with its own reason (unless `onTaskStop: 'continue'`).
 */
import type { OuterBounds } from '../contracts/bounds.js';
import type { TaskResult, WorkflowMetrics } from '../contracts/results.js';
import { isNaturalCompletion } from '../contracts/stop.js';
import type { OnTaskStop } from '../contracts/workflow-protocol.js';
import type { StopCandidate } from './inner-conditions.js';

export interface OuterCheck {
  readonly bounds: OuterBounds;
  readonly results: readonly TaskResult[];
  readonly metrics: WorkflowMetrics;
  readonly onTaskStop: OnTaskStop;
  /** Tasks still to run, when the strategy knows; `undefined` when a planner decides. */
  readonly remaining: number | undefined;
  readonly elapsedMs: number;
}

export type OuterCondition = (check: OuterCheck) => StopCandidate | undefined;

export function haltedByTask({ results, onTaskStop }: OuterCheck): StopCandidate | undefined {
  const last = results[results.length - 1];
  if (last === undefined || onTaskStop !== 'halt' || isNaturalCompletion(last.stop.reason)) return undefined;
  const { stop } = last;
  const detail = `task "${last.taskId}" stopped: ${stop.detail}`;
  const bound = stop.bound === undefined ? {} : { bound: stop.bound };
  return stop.reason === 'error' ? { reason: 'error', code: stop.code, detail, ...bound } : { reason: stop.reason, detail, ...bound };
}

export const everyTaskFinished: OuterCondition = ({ remaining, results }) => {
  if (remaining !== 0) return undefined;
  const early = results.filter((result) => !isNaturalCompletion(result.stop.reason));
  const detail =
    early.length === 0
      ? `all ${results.length} tasks finished`
      : `every task ran (${results.length}); ${early.length} stopped early: ${early.map((result) => `${result.taskId} ${result.stop.reason}`).join(', ')}`;
  return { reason: 'goal_achieved', detail };
};

export const stepsExhausted: OuterCondition = ({ bounds, metrics }) =>
  metrics.workflowSteps >= bounds.maxWorkflowSteps
    ? {
        reason: 'max_workflow_steps',
        detail: `${metrics.workflowSteps} workflow steps reached maxWorkflowSteps=${bounds.maxWorkflowSteps}`,
        bound: { name: 'maxWorkflowSteps', limit: bounds.maxWorkflowSteps, value: metrics.workflowSteps },
      }
    : undefined;

export const sessionRuntimeExceeded: OuterCondition = ({ bounds, elapsedMs }) =>
  elapsedMs >= bounds.maxSessionRuntimeMs
    ? {
        reason: 'max_session_runtime',
        detail: `session runtime ${elapsedMs} ms reached maxSessionRuntimeMs=${bounds.maxSessionRuntimeMs}`,
        bound: { name: 'maxSessionRuntimeMs', limit: bounds.maxSessionRuntimeMs, value: elapsedMs },
      }
    : undefined;

export const workflowBudgetExhausted: OuterCondition = ({ bounds, metrics }) => {
  const tokens = metrics.inputTokens + metrics.outputTokens;
  if (bounds.maxTokens !== undefined && tokens >= bounds.maxTokens) {
    return { reason: 'budget_exhausted', detail: `workflow used ${tokens} tokens, maxTokens=${bounds.maxTokens}`, bound: { name: 'outer.maxTokens', limit: bounds.maxTokens, value: tokens } };
  }
  if (bounds.maxCostUsd !== undefined && metrics.costUsd >= bounds.maxCostUsd) {
    return {
      reason: 'budget_exhausted',
      detail: `workflow cost $${metrics.costUsd.toFixed(6)}, maxCostUsd=${bounds.maxCostUsd}`,
      bound: { name: 'outer.maxCostUsd', limit: bounds.maxCostUsd, value: metrics.costUsd },
    };
  }
  return undefined;
};

export const OUTER_CONDITIONS: readonly OuterCondition[] = [everyTaskFinished, sessionRuntimeExceeded, workflowBudgetExhausted, stepsExhausted];
