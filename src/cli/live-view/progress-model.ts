import { defaultTaskId, isItemOf } from '../../contracts/task-id.js';
import type { KernelEvent, TaskCounters } from '../../contracts/events.js';
import type { StopCondition } from '../../contracts/stop.js';
import type { WorkflowMetrics } from '../../contracts/results.js';

/** Run-wide counters as the live view shows them. */
export interface Totals {
  readonly toolCalls: number;
  readonly tokens: number;
  readonly costUsd: number;
}

/** A task running now, with its counters so far. A fan-out item (`<taskId>[i]`) carries its task's index. */
export interface RunningTask {
  readonly id: string;
  readonly index: number;
  readonly description: string;
  readonly startedAt: number;
  readonly turn: number;
  readonly totals: Totals;
  /** Its latest assistant text: its answer once it ends. */
  readonly lastText: string;
}

/** What the live view knows of a run, folded from its events. */
export interface ProgressState {
  readonly tasks: readonly { readonly id: string; readonly description: string }[];
  /** The tasks running now, in the order they started: at most one in a list, every branch in a graph. */
  readonly running: readonly RunningTask[];
  /** Finished tasks' counters (plus what a resumed run had spent before). */
  readonly done: Totals;
  /** Tasks that ended (a fan-out task once, not per item). */
  readonly tasksDone: number;
  /** Plan strategies: tasks done plus the steps the current plan still holds. */
  readonly planned: number | undefined;
  /** Fan-out tasks whose items ran: their own end sums their items' counters, already counted. */
  readonly fannedOut: readonly string[];
  readonly stop: StopCondition | undefined;
}

const ZERO: Totals = { toolCalls: 0, tokens: 0, costUsd: 0 };

/** The state before the first event; `before` is what a resumed run had spent already. */
export function initialProgress(before?: WorkflowMetrics, tasksDone = 0): ProgressState {
  return {
    tasks: [],
    running: [],
    done: before === undefined ? ZERO : { toolCalls: before.toolCalls, tokens: before.inputTokens + before.outputTokens, costUsd: before.costUsd },
    tasksDone,
    planned: undefined,
    fannedOut: [],
    stop: undefined,
  };
}

/** Folds one event into the state. Pure. */
export function reduceProgress(state: ProgressState, event: KernelEvent): ProgressState {
  switch (event.type) {
    case 'workflow_start':
      return { ...state, tasks: event.tasks };
    case 'task_start': {
      const started: RunningTask = { id: event.taskId, index: event.taskIndex, description: event.description, startedAt: event.at, turn: 0, totals: ZERO, lastText: '' };
      const running = [...state.running.filter((task) => task.id !== event.taskId), started];
      const owner = itemOwner(state, event);
      if (owner !== undefined) return { ...state, running, fannedOut: state.fannedOut.includes(owner) ? state.fannedOut : [...state.fannedOut, owner] };
      // Plan strategies make their tasks as they go: a task the start event did not list joins the list.
      const tasks = state.tasks[event.taskIndex]?.id === event.taskId ? state.tasks : withTask(state.tasks, event.taskIndex, { id: event.taskId, description: event.description });
      return { ...state, tasks, running };
    }
    case 'plan_created':
    case 'plan_revised':
      return { ...state, planned: state.tasksDone + event.steps.length };
    case 'turn_start':
      return updateRunning(state, event.taskId, (task) => ({ ...task, turn: event.turn }));
    case 'message_end':
      return updateRunning(state, event.taskId, (task) => ({
        ...task,
        totals: { ...task.totals, tokens: task.totals.tokens + event.usage.inputTokens + event.usage.outputTokens, costUsd: task.totals.costUsd + event.costUsd },
        lastText: event.text.trim() === '' ? task.lastText : event.text,
      }));
    case 'tool_execution_end':
      return updateRunning(state, event.taskId, (task) => ({ ...task, totals: { ...task.totals, toolCalls: task.totals.toolCalls + 1 } }));
    case 'task_end': {
      const running = state.running.filter((task) => task.id !== event.taskId);
      const item = itemOwner(state, event) !== undefined;
      const done = state.fannedOut.includes(event.taskId) ? state.done : add(state.done, event.counters);
      return { ...state, running, done, tasksDone: item ? state.tasksDone : state.tasksDone + 1 };
    }
    case 'workflow_end':
      return {
        ...state,
        running: [],
        stop: event.stop,
        done: { toolCalls: event.metrics.toolCalls, tokens: event.metrics.inputTokens + event.metrics.outputTokens, costUsd: event.metrics.costUsd },
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
  return state.running.reduce((totals, task) => sum(totals, task.totals), state.done);
}

/** The running task `taskId`, when it runs. */
export function runningTask(state: ProgressState, taskId: string): RunningTask | undefined {
  return state.running.find((task) => task.id === taskId);
}

/** The task a fan-out item (`<taskId>[i]`, at its task's index) belongs to; undefined for any other task. */
function itemOwner(state: ProgressState, event: { readonly taskId: string; readonly taskIndex: number }): string | undefined {
  const owner = state.tasks[event.taskIndex]?.id;
  return owner !== undefined && isItemOf(event.taskId, owner) ? owner : undefined;
}

function updateRunning(state: ProgressState, taskId: string, update: (task: RunningTask) => RunningTask): ProgressState {
  if (!state.running.some((task) => task.id === taskId)) return state;
  return { ...state, running: state.running.map((task) => (task.id === taskId ? update(task) : task)) };
}

function sum(a: Totals, b: Totals): Totals {
  return { toolCalls: a.toolCalls + b.toolCalls, tokens: a.tokens + b.tokens, costUsd: a.costUsd + b.costUsd };
}

function add(totals: Totals, counters: TaskCounters): Totals {
  return sum(totals, { toolCalls: counters.toolCalls, tokens: counters.inputTokens + counters.outputTokens, costUsd: counters.costUsd });
}

function withTask(tasks: ProgressState['tasks'], index: number, task: ProgressState['tasks'][number]): ProgressState['tasks'] {
  const copy = [...tasks];
  copy[index] = task;
  return Array.from(copy, (entry, position) => entry ?? { id: defaultTaskId(position), description: '' });
}
