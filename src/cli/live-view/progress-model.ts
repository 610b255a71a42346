import { defaultTaskId } from '../../contracts/task-id.js';
import type { KernelEvent, TaskCounters } from '../../contracts/events.js';
import type { StopCondition } from '../../contracts/stop.js';
import type { WorkflowMetrics } from '../../contracts/results.js';

/** Run-wide counters as the live view shows them. */
export interface Totals {
  readonly toolCalls: number;
  readonly tokens: number;
  readonly costUsd: number;
}

/** What the live view knows of a run, folded from its events. */
export interface ProgressState {
  readonly tasks: readonly { readonly id: string; readonly description: string }[];
  /** Index of the running task, if one is running. */
  readonly taskIndex: number | undefined;
  readonly taskStartedAt: number | undefined;
  readonly turn: number;
  /** The running task's counters so far. */
  readonly task: Totals;
  /** Finished tasks' counters (plus what a resumed run had spent before). */
  readonly done: Totals;
  readonly tasksDone: number;
  /** Plan strategies: tasks done plus the steps the current plan still holds. */
  readonly planned: number | undefined;
  /** The running task's latest assistant text: its answer once it ends. */
  readonly lastText: string;
  readonly stop: StopCondition | undefined;
}

const ZERO: Totals = { toolCalls: 0, tokens: 0, costUsd: 0 };

/** The state before the first event; `before` is what a resumed run had spent already. */
export function initialProgress(before?: WorkflowMetrics, tasksDone = 0): ProgressState {
  return {
    tasks: [],
    taskIndex: undefined,
    taskStartedAt: undefined,
    turn: 0,
    task: ZERO,
    done: before === undefined ? ZERO : { toolCalls: before.toolCalls, tokens: before.inputTokens + before.outputTokens, costUsd: before.costUsd },
    tasksDone,
    planned: undefined,
    lastText: '',
    stop: undefined,
  };
}

/** Folds one event into the state. Pure. */
export function reduceProgress(state: ProgressState, event: KernelEvent): ProgressState {
  switch (event.type) {
    case 'workflow_start':
      return { ...state, tasks: event.tasks };
    case 'task_start': {
      // Plan strategies make their tasks as they go: a task the start event did not list joins the list.
      const tasks = state.tasks[event.taskIndex]?.id === event.taskId ? state.tasks : withTask(state.tasks, event.taskIndex, { id: event.taskId, description: event.description });
      return { ...state, tasks, taskIndex: event.taskIndex, taskStartedAt: event.at, turn: 0, task: ZERO, lastText: '' };
    }
    case 'plan_created':
    case 'plan_revised':
      return { ...state, planned: state.tasksDone + event.steps.length };
    case 'turn_start':
      return { ...state, turn: event.turn };
    case 'message_end':
      return {
        ...state,
        task: { ...state.task, tokens: state.task.tokens + event.usage.inputTokens + event.usage.outputTokens, costUsd: state.task.costUsd + event.costUsd },
        lastText: event.text.trim() === '' ? state.lastText : event.text,
      };
    case 'tool_execution_end':
      return { ...state, task: { ...state.task, toolCalls: state.task.toolCalls + 1 } };
    case 'task_end':
      return { ...state, taskIndex: undefined, taskStartedAt: undefined, task: ZERO, done: add(state.done, event.counters), tasksDone: state.tasksDone + 1 };
    case 'workflow_end':
      return {
        ...state,
        taskIndex: undefined,
        stop: event.stop,
        done: { toolCalls: event.metrics.toolCalls, tokens: event.metrics.inputTokens + event.metrics.outputTokens, costUsd: event.metrics.costUsd },
        task: ZERO,
      };
    default:
      return state;
  }
}

/** How many tasks the run has: the listed ones, or as many as the plan holds. */
export function taskTotal(state: ProgressState): number {
  return Math.max(state.tasks.length, state.planned ?? 0);
}

export function runTotals(state: ProgressState): Totals {
  return { toolCalls: state.done.toolCalls + state.task.toolCalls, tokens: state.done.tokens + state.task.tokens, costUsd: state.done.costUsd + state.task.costUsd };
}

function add(totals: Totals, counters: TaskCounters): Totals {
  return {
    toolCalls: totals.toolCalls + counters.toolCalls,
    tokens: totals.tokens + counters.inputTokens + counters.outputTokens,
    costUsd: totals.costUsd + counters.costUsd,
  };
}

function withTask(tasks: ProgressState['tasks'], index: number, task: ProgressState['tasks'][number]): ProgressState['tasks'] {
  const copy = [...tasks];
  copy[index] = task;
  return Array.from(copy, (entry, position) => entry ?? { id: defaultTaskId(position), description: '' });
}
