/**
 * The scheduler of a graph workflow (TASK_SELECT's source for `dependsOn`/`forEach` tasks): from
 * the results so far and the tasks busy now, the tasks that may start (in task order, at most the
 * free slots and the steps left), the tasks that end without running, or — when nothing runs and
 * nothing can start — how the workflow ends. Pure: the same results always give the same answer,
 * which is what lets a resume pick up where a crash left off (docs/workflows.md).
 *
 * A task is ready once every task it waits for ended naturally; it ends `dependency_failed` when
 * one of them ended otherwise for good (a task halted for a resumable reason — awaiting approval,
 * cancelled, failed with `error` — is waited for instead: a resume runs it again).
 */
import type { TaskResult } from '../contracts/results.js';
import type { StopCandidate, StopCondition } from '../contracts/stop.js';
import { isNaturalCompletion, isResumableStop, pickStop } from '../contracts/stop-rules.js';
import type { TaskSpec } from '../contracts/turn-protocol.js';
import { fanOut, fanOutState } from './fan-out.js';
import { unrunTaskResult } from '../loop/branch-reducers.js';
import { fillPlaceholders } from './placeholders.js';
import { dependenciesOf } from './task-graph.js';

export interface ScheduleInput {
  readonly tasks: readonly TaskSpec[];
  readonly results: readonly TaskResult[];
  /** Tasks running, picked or halted now. */
  readonly busy: readonly string[];
  readonly running: number;
  readonly slots: number;
  /** Tasks that ran so far (a fan-out item is one; a task that ended without running is none). */
  readonly workflowSteps: number;
  readonly maxWorkflowSteps: number;
  readonly at: number;
}

/** A task that may start, its description filled; `missing` names placeholders that found no value. */
export interface ReadyTask {
  readonly task: TaskSpec;
  readonly missing: readonly string[];
}

export type Schedule =
  | { readonly kind: 'ready'; readonly start: readonly ReadyTask[]; readonly settled: readonly TaskResult[] }
  | { readonly kind: 'stop'; readonly stop: StopCondition };

export function schedule(input: ScheduleInput): Schedule {
  const latest = new Map<string, TaskResult>();
  for (const result of input.results) latest.set(result.taskId, result);
  const busy = new Set(input.busy);
  const output = (taskId: string) => latest.get(taskId)?.output;
  const start: ReadyTask[] = [];
  const settled: TaskResult[] = [];
  const stepsLeft = input.maxWorkflowSteps - input.workflowSteps - input.running;
  let room = Math.max(0, Math.min(input.slots, stepsLeft));
  let blockedBySteps = false;
  const offer = (task: TaskSpec, missing: readonly string[] = []) => {
    if (room === 0) {
      blockedBySteps ||= stepsLeft <= 0 && input.running === 0;
      return;
    }
    start.push({ task, missing });
    room -= 1;
  };
  for (const task of input.tasks) {
    if (latest.has(task.id) || busy.has(task.id)) continue;
    const dependencies = dependenciesOf(task, input.tasks, true).map((id) => latest.get(id));
    const failed = dependencies.find((result) => result !== undefined && !isNaturalCompletion(result.stop.reason) && !isResumableStop(result.stop.reason));
    if (failed !== undefined) {
      settled.push(unrunTaskResult(task, { reason: 'dependency_failed', detail: `dependency "${failed.taskId}" stopped ${failed.stop.reason}: ${failed.stop.detail}`, at: input.at }));
      continue;
    }
    if (!dependencies.every((result) => result !== undefined && isNaturalCompletion(result.stop.reason))) continue;
    if (task.forEach === undefined) {
      const { text, missing } = fillPlaceholders(task.description, { output });
      offer({ ...task, description: text }, missing);
      continue;
    }
    const source = latest.get(dependenciesOf(task, input.tasks, true).at(-1)!);
    const items = fanOut(task, source?.output, output);
    if ('stop' in items) {
      settled.push({ ...unrunTaskResult(task, { ...items.stop, at: input.at } as StopCondition), ...(items.output === undefined ? {} : { output: items.output }) });
      continue;
    }
    const state = fanOutState(task, items.items, (id) => latest.get(id), busy, input.at);
    if (state.result !== undefined) settled.push(state.result);
    for (const item of state.startable) offer(item);
  }
  if (start.length > 0 || settled.length > 0 || input.running > 0) return { kind: 'ready', start, settled };
  return { kind: 'stop', stop: { ...finalStop(input, latest, blockedBySteps), at: input.at } };
}


/**
 * How a graph ends when nothing runs and nothing can start: the highest-priority stop among its
 * tasks that did not end naturally (items count through their `forEach` task, a
 * `dependency_failed` through the dependency that caused it), else every task finished.
 */
function finalStop(input: ScheduleInput, latest: ReadonlyMap<string, TaskResult>, blockedBySteps: boolean): StopCandidate {
  const candidates: StopCandidate[] = [];
  for (const result of latest.values()) {
    const spec = input.tasks.find((task) => task.id === result.taskId);
    if (spec === undefined || isNaturalCompletion(result.stop.reason) || result.stop.reason === 'dependency_failed') continue;
    const { stop } = result;
    const detail = `task "${result.taskId}" stopped: ${stop.detail}`;
    const bound = stop.bound === undefined ? {} : { bound: stop.bound };
    candidates.push(stop.reason === 'error' ? { reason: 'error', code: stop.code, detail, ...bound } : { reason: stop.reason, detail, ...bound });
  }
  for (const id of input.busy) {
    const halted = latest.get(id);
    if (halted === undefined || input.tasks.some((task) => task.id === id)) continue;
    // A halted fan-out item: its task waits for it.
    const { stop } = halted;
    const detail = `item ${id} stopped: ${stop.detail}`;
    candidates.push(stop.reason === 'error' ? { reason: 'error', code: stop.code, detail } : { reason: stop.reason, detail });
  }
  if (blockedBySteps) {
    const { workflowSteps: steps, maxWorkflowSteps: limit } = input;
    candidates.push({ reason: 'max_workflow_steps', detail: `${steps} workflow steps reached maxWorkflowSteps=${limit}; tasks are left`, bound: { name: 'maxWorkflowSteps', limit, value: steps } });
  }
  const chosen = pickStop(candidates);
  if (chosen !== undefined) return chosen;
  const waiting = input.tasks.filter((task) => !latest.has(task.id)).map((task) => task.id);
  if (waiting.length > 0) return { reason: 'error', code: 'internal_error', detail: `internal: tasks ${waiting.join(', ')} can never start` };
  return { reason: 'goal_achieved', detail: `all ${input.tasks.length} tasks finished` };
}
