import type { TaskCounters, KernelEvent } from '../../contracts/events.js';
import type { StopCondition } from '../../contracts/stop.js';

/** The running (or last) task's counters, from its events; replaced by `task_end`'s counters. */
export interface TaskProgress {
  readonly taskId: string;
  readonly index: number;
  readonly description: string;
  readonly startedAt: number;
  readonly turn: number;
  readonly toolCalls: number;
  readonly tokens: number;
  readonly costUsd: number;
  /** Set once the task ended. */
  readonly runtimeMs: number | undefined;
  readonly stop: StopCondition | undefined;
}

/** Counters of the whole run. */
export interface RunProgress {
  readonly task: TaskProgress | undefined;
  /** Tasks ended (`task_end`), the workflow-step count. */
  readonly steps: number;
  readonly toolCalls: number;
  readonly tokens: number;
  readonly costUsd: number;
  /** Runtime of the run's finished segments (a resumed run has one per process). */
  readonly elapsedBeforeMs: number;
  /** Start of the segment running now. */
  readonly segmentStartedAt: number | undefined;
  readonly stop: StopCondition | undefined;
  /** `at` of the latest event. */
  readonly lastAt: number | undefined;
}

export const INITIAL_PROGRESS: RunProgress = {
  task: undefined,
  steps: 0,
  toolCalls: 0,
  tokens: 0,
  costUsd: 0,
  elapsedBeforeMs: 0,
  segmentStartedAt: undefined,
  stop: undefined,
  lastAt: undefined,
};

/** Folds one event into the counters. Pure. Finished tasks count with `task_end`'s counters, the running one with its events. */
export function reduceProgress(progress: RunProgress, event: KernelEvent): RunProgress {
  const next = { ...progress, lastAt: event.at };
  const task = progress.task;
  switch (event.type) {
    case 'workflow_start':
      return { ...next, segmentStartedAt: event.at, stop: undefined };
    case 'task_start':
      return {
        ...next,
        task: { taskId: event.taskId, index: event.taskIndex, description: event.description, startedAt: event.at, turn: 0, toolCalls: 0, tokens: 0, costUsd: 0, runtimeMs: undefined, stop: undefined },
      };
    case 'turn_start':
      return task === undefined ? next : { ...next, task: { ...task, turn: event.turn } };
    case 'message_end':
      return task === undefined ? next : { ...next, task: { ...task, tokens: task.tokens + event.usage.inputTokens + event.usage.outputTokens, costUsd: task.costUsd + event.costUsd } };
    case 'tool_execution_end':
      return task === undefined ? next : { ...next, task: { ...task, toolCalls: task.toolCalls + 1 } };
    case 'task_end':
      return { ...next, ...finishedTask(progress, event.counters), task: endedTask(task, event) };
    case 'workflow_end': {
      const metrics = event.metrics;
      const segment = progress.segmentStartedAt === undefined ? 0 : event.at - progress.segmentStartedAt;
      return {
        ...next,
        steps: metrics.workflowSteps,
        toolCalls: metrics.toolCalls,
        tokens: metrics.inputTokens + metrics.outputTokens,
        costUsd: metrics.costUsd,
        elapsedBeforeMs: progress.elapsedBeforeMs + segment,
        segmentStartedAt: undefined,
        stop: event.stop,
      };
    }
    default:
      return next;
  }
}

function finishedTask(progress: RunProgress, counters: TaskCounters): Pick<RunProgress, 'steps' | 'toolCalls' | 'tokens' | 'costUsd'> {
  return {
    steps: progress.steps + 1,
    toolCalls: progress.toolCalls + counters.toolCalls,
    tokens: progress.tokens + counters.inputTokens + counters.outputTokens,
    costUsd: progress.costUsd + counters.costUsd,
  };
}

function endedTask(task: TaskProgress | undefined, event: Extract<KernelEvent, { type: 'task_end' }>): TaskProgress {
  const { counters } = event;
  return {
    taskId: event.taskId,
    index: event.taskIndex,
    description: task?.taskId === event.taskId ? task.description : '',
    startedAt: task?.taskId === event.taskId ? task.startedAt : event.at - counters.runtimeMs,
    turn: counters.turns,
    toolCalls: counters.toolCalls,
    tokens: counters.inputTokens + counters.outputTokens,
    costUsd: counters.costUsd,
    runtimeMs: counters.runtimeMs,
    stop: event.stop,
  };
}

/** The run's counters including the running task's, which `task_end` has not added yet. */
export function runTotals(progress: RunProgress): { readonly toolCalls: number; readonly tokens: number; readonly costUsd: number } {
  const running = progress.task !== undefined && progress.task.stop === undefined && progress.stop === undefined ? progress.task : undefined;
  return {
    toolCalls: progress.toolCalls + (running?.toolCalls ?? 0),
    tokens: progress.tokens + (running?.tokens ?? 0),
    costUsd: progress.costUsd + (running?.costUsd ?? 0),
  };
}
