import type { TaskCounters, KernelEvent } from '../../contracts/events.js';
import type { StopCondition } from '../../contracts/stop.js';
import { isItemOf } from '../../contracts/task-id.js';

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
  /** The task the latest event was about: the running one in a list, the latest active branch in a graph. */
  readonly task: TaskProgress | undefined;
  /** Every task running now (a graph's branches), with its counters so far. */
  readonly running: readonly TaskProgress[];
  /** The run's tasks by index, as `workflow_start` lists them (a fan-out item has its task's index). */
  readonly taskIds: readonly string[];
  /** Fan-out tasks whose items ran: their own end sums their items' counters, already counted. */
  readonly fannedOut: readonly string[];
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
  running: [],
  taskIds: [],
  fannedOut: [],
  steps: 0,
  toolCalls: 0,
  tokens: 0,
  costUsd: 0,
  elapsedBeforeMs: 0,
  segmentStartedAt: undefined,
  stop: undefined,
  lastAt: undefined,
};

/** Folds one event into the counters. Pure. Finished tasks count with `task_end`'s counters, running ones with their events. */
export function reduceProgress(progress: RunProgress, event: KernelEvent): RunProgress {
  const next = { ...progress, lastAt: event.at };
  switch (event.type) {
    case 'workflow_start':
      return { ...next, taskIds: event.tasks.map((task) => task.id), segmentStartedAt: event.at, stop: undefined };
    case 'task_start': {
      const task: TaskProgress = { taskId: event.taskId, index: event.taskIndex, description: event.description, startedAt: event.at, turn: 0, toolCalls: 0, tokens: 0, costUsd: 0, runtimeMs: undefined, stop: undefined };
      const owner = progress.taskIds[event.taskIndex];
      const item = owner !== undefined && isItemOf(event.taskId, owner);
      const fannedOut = !item || progress.fannedOut.includes(owner) ? progress.fannedOut : [...progress.fannedOut, owner];
      return { ...next, task, running: [...progress.running.filter((other) => other.taskId !== event.taskId), task], fannedOut };
    }
    case 'turn_start':
      return updateTask(next, event.taskId, (task) => ({ ...task, turn: event.turn }));
    case 'message_end':
      return updateTask(next, event.taskId, (task) => ({ ...task, tokens: task.tokens + event.usage.inputTokens + event.usage.outputTokens, costUsd: task.costUsd + event.costUsd }));
    case 'tool_execution_end':
      return updateTask(next, event.taskId, (task) => ({ ...task, toolCalls: task.toolCalls + 1 }));
    case 'task_end': {
      const started = progress.running.find((task) => task.taskId === event.taskId);
      const counted = progress.fannedOut.includes(event.taskId) ? {} : finishedTask(progress, event.counters);
      return { ...next, ...counted, running: progress.running.filter((task) => task !== started), task: endedTask(started ?? progress.task, event) };
    }
    case 'workflow_end': {
      const metrics = event.metrics;
      const segment = progress.segmentStartedAt === undefined ? 0 : event.at - progress.segmentStartedAt;
      return {
        ...next,
        running: [],
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

/** A running task's event: it becomes the task the gauges show. */
function updateTask(progress: RunProgress, taskId: string, update: (task: TaskProgress) => TaskProgress): RunProgress {
  const current = progress.running.find((task) => task.taskId === taskId);
  if (current === undefined) return progress;
  const task = update(current);
  return { ...progress, task, running: progress.running.map((other) => (other === current ? task : other)) };
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

/** The run's counters including the running tasks', which `task_end` has not added yet. */
export function runTotals(progress: RunProgress): { readonly toolCalls: number; readonly tokens: number; readonly costUsd: number } {
  const running = progress.stop === undefined ? progress.running : [];
  return {
    toolCalls: running.reduce((sum, task) => sum + task.toolCalls, progress.toolCalls),
    tokens: running.reduce((sum, task) => sum + task.tokens, progress.tokens),
    costUsd: running.reduce((sum, task) => sum + task.costUsd, progress.costUsd),
  };
}
