/**
 * Fan-out (`forEach`, docs/workflows.md): a task that runs once per element of an array in another
 * task's output. Each item is its own task, `<taskId>[<position>]`, with `{{item}}` filled; the
 * task itself ends when every item has, its output the items' outputs in item order. One item
 * that stops early fails the task (no further item starts) unless `forEachFailure: 'collect'`,
 * which keeps the others and lists the failed ones. Pure.
 */
import { maxItemsOf } from '../contracts/bounds.js';
import type { TaskResult } from '../contracts/results.js';
import type { StopCondition } from '../contracts/stop.js';
import { isNaturalCompletion, isResumableStop, pickStop } from '../contracts/stop-rules.js';
import type { TaskSpec } from '../contracts/turn-protocol.js';
import { fillPlaceholders, parseOutputReference, valueAt } from './placeholders.js';

export function itemId(taskId: string, position: number): string {
  return `${taskId}[${position}]`;
}

/** What a `forEach` task's source output gives: its items, or why the task ends without any. */
export type FanOut = { readonly items: readonly TaskSpec[] } | { readonly stop: Omit<StopCondition, 'at'>; readonly output?: unknown };

/** The items of a `forEach` task whose source ended naturally with `sourceOutput`. */
export function fanOut(task: TaskSpec, sourceOutput: unknown, output: (taskId: string) => unknown): FanOut {
  const reference = parseOutputReference(task.forEach!)!;
  const values = valueAt(sourceOutput, reference.path);
  if (!Array.isArray(values)) {
    const got = values === undefined ? 'nothing' : Array.isArray(values) ? 'an array' : typeof values;
    return { stop: { reason: 'invalid_output', detail: `task "${task.id}": forEach "${task.forEach}" is not an array (it is ${got})` } };
  }
  const maxItems = maxItemsOf(task.bounds);
  if (values.length > maxItems) {
    return {
      stop: {
        reason: 'invalid_output',
        detail: `task "${task.id}": forEach "${task.forEach}" has ${values.length} items, more than maxItems=${maxItems}`,
        bound: { name: 'maxItems', limit: maxItems, value: values.length },
      },
    };
  }
  if (values.length === 0) return { stop: { reason: 'goal_achieved', detail: `task "${task.id}": forEach "${task.forEach}" has no items` }, output: [] };
  const items = values.map((value, position): TaskSpec => {
    const { text } = fillPlaceholders(task.description, { output, item: { value } });
    const { forEach: _forEach, forEachFailure: _failure, dependsOn: _dependsOn, ...spec } = task;
    return { ...spec, id: itemId(task.id, position), description: text, item: { of: task.id, position, value } };
  });
  return { items };
}

/** How a fan-out stands: which items may start, and the task's result once it is over. */
export interface FanOutState {
  readonly startable: readonly TaskSpec[];
  readonly result?: TaskResult;
}

/** The items' results so far decide what may start and whether the task is over. */
export function fanOutState(task: TaskSpec, items: readonly TaskSpec[], resultOf: (taskId: string) => TaskResult | undefined, busy: ReadonlySet<string>, at: number): FanOutState {
  const results = items.map((item) => resultOf(item.id));
  const failed = results.filter((result): result is TaskResult => result !== undefined && !isNaturalCompletion(result.stop.reason) && !isResumableStop(result.stop.reason));
  const collect = task.forEachFailure === 'collect';
  const stopStarting = failed.length > 0 && !collect;
  const startable = stopStarting ? [] : items.filter((item, position) => results[position] === undefined && !busy.has(item.id));
  const unfinished = items.some((item, position) => busy.has(item.id) || (results[position] === undefined && !stopStarting) || isHalted(results[position]));
  if (unfinished) return { startable };
  return { startable: [], result: aggregate(task, items, results, failed, collect, at) };
}

function isHalted(result: TaskResult | undefined): boolean {
  return result !== undefined && isResumableStop(result.stop.reason);
}

function aggregate(task: TaskSpec, items: readonly TaskSpec[], results: readonly (TaskResult | undefined)[], failed: readonly TaskResult[], collect: boolean, at: number): TaskResult {
  const ran = results.filter((result): result is TaskResult => result !== undefined);
  const sum = (pick: (result: TaskResult) => number) => ran.reduce((total, result) => total + pick(result), 0);
  const worst = pickStop(failed.map((result) => result.stop));
  const failedItem = worst === undefined ? undefined : failed.find((result) => result.stop === worst)!;
  const stop: StopCondition =
    failedItem === undefined || collect
      ? { reason: 'goal_achieved', detail: `all ${items.length} items ended${failed.length === 0 ? '' : `; ${failed.length} stopped early: ${failed.map((result) => `${result.taskId} ${result.stop.reason}`).join(', ')}`}`, at }
      : failedItem.stop.reason === 'error'
        ? { reason: 'error', code: failedItem.stop.code, detail: `item ${failedItem.taskId} stopped: ${failedItem.stop.detail}`, at }
        : { reason: failedItem.stop.reason, detail: `item ${failedItem.taskId} stopped: ${failedItem.stop.detail}`, ...(failedItem.stop.bound === undefined ? {} : { bound: failedItem.stop.bound }), at };
  return {
    taskId: task.id,
    index: task.index,
    description: task.description,
    stop,
    turns: [],
    turnCount: sum((result) => result.turnCount),
    toolCalls: sum((result) => result.toolCalls),
    output: results.map((result) => (result === undefined || !isNaturalCompletion(result.stop.reason) ? null : result.output)),
    usage: { inputTokens: sum((result) => result.usage.inputTokens), outputTokens: sum((result) => result.usage.outputTokens) },
    costUsd: sum((result) => result.costUsd),
    runtimeMs: Math.max(0, ...ran.map((result) => result.runtimeMs)),
    ...(failed.length === 0 ? {} : { failedItems: failed.map((result) => ({ taskId: result.taskId, stop: result.stop })) }),
  };
}
