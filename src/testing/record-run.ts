/**
 * The event recorder of `dualloop/testing`: drains a run and answers questions about it, with
 * assertions on how it stopped that throw a plain `AssertionError` (node:assert) naming what was
 * expected and what happened. It imports no test framework, so it works under any of them.
 */
import { AssertionError } from 'node:assert';
import type { ErrorCode } from '../contracts/error-codes.js';
import type { KernelEvent, KernelEventType } from '../contracts/events.js';
import type { TaskResult, WorkflowResult } from '../contracts/results.js';
import type { StopCondition, StopReason } from '../contracts/stop.js';
import { isNaturalCompletion } from '../contracts/stop-rules.js';
import type { WorkflowRun } from '../kernel/workflow-run.js';
import { collectRun } from './fakes.js';

/** What a stop must also match, besides its reason. */
export interface ExpectedStop {
  /** The error code (reason `error`). */
  readonly code?: ErrorCode;
  /** A text the detail contains, or a pattern it matches. */
  readonly detail?: string | RegExp;
  /** The name of the bound that fired (`maxTurns`, `maxToolCalls`, …). */
  readonly bound?: string;
}

/** A tool call as the run reported it (`tool_execution_end`). */
export interface RecordedToolCall {
  readonly taskId: string;
  readonly turn: number;
  readonly toolCallId: string;
  readonly name: string;
  readonly result: unknown;
  readonly isError: boolean;
}

export interface RunRecording {
  readonly runId: string;
  /** Every event of the run, in `seq` order. */
  readonly events: readonly KernelEvent[];
  readonly result: WorkflowResult;
  readonly stop: StopCondition;
  /** The events of one type. */
  ofType<Type extends KernelEventType>(type: Type): Extract<KernelEvent, { readonly type: Type }>[];
  /** The tool calls that ended, in the order they ended. */
  toolCalls(): RecordedToolCall[];
  /** Throws unless the run stopped for `reason` (and matches `expected`); returns the stop. */
  expectStop(reason: StopReason, expected?: ExpectedStop): StopCondition;
  /** Throws unless the task (by index or id) stopped for `reason` (and matches `expected`); returns its stop. */
  expectTaskStop(task: number | string, reason: StopReason, expected?: ExpectedStop): StopCondition;
  /** Throws unless the run ended by natural completion (`goal_achieved`, `planner_stopped`, `tool_terminated`). */
  expectCompleted(): WorkflowResult;
}

/** Drains `run` (its events and its result) and returns a recording of it. */
export async function recordRun(run: WorkflowRun): Promise<RunRecording> {
  const { events, result } = await collectRun(run);
  const label = `run ${result.runId}`;
  const taskOf = (task: number | string): TaskResult => {
    const found = typeof task === 'number' ? result.tasks.find((candidate) => candidate.index === task) : result.tasks.find((candidate) => candidate.taskId === task);
    if (found !== undefined) return found;
    const ran = result.tasks.map((candidate) => `${candidate.index} (${candidate.taskId})`).join(', ') || 'none';
    throw new AssertionError({ message: `${label} has no result for task ${String(task)}; tasks that ran: ${ran}`, actual: undefined, expected: task, operator: 'expectTaskStop' });
  };
  return {
    runId: result.runId,
    events,
    result,
    stop: result.stop,
    ofType: <Type extends KernelEventType>(type: Type) => events.filter((event): event is Extract<KernelEvent, { readonly type: Type }> => event.type === type),
    toolCalls: () =>
      events.flatMap((event) =>
        event.type === 'tool_execution_end'
          ? [{ taskId: event.taskId, turn: event.turn, toolCallId: event.toolCallId, name: event.name, result: event.result, isError: event.isError }]
          : [],
      ),
    expectStop: (reason, expected) => expectStop(result.stop, reason, expected, { label, events }),
    expectTaskStop: (task, reason, expected) => {
      const found = taskOf(task);
      return expectStop(found.stop, reason, expected, { label: `task ${found.taskId} of ${label}`, events });
    },
    expectCompleted: () => {
      if (!isNaturalCompletion(result.stop.reason)) {
        throw new AssertionError({ message: `expected ${label} to complete, but it stopped ${describeStop(result.stop, events)}`, actual: result.stop, expected: 'natural completion', operator: 'expectCompleted' });
      }
      return result;
    },
  };
}

/**
 * Throws unless `stop` (a StopCondition, or a result's `stop`) has `reason` and matches `expected`;
 * returns the stop. Use it on what `runWorkflow` returns; `recordRun` gives the same with the events.
 */
export function expectStop(
  stopOrResult: StopCondition | { readonly stop: StopCondition },
  reason: StopReason,
  expected: ExpectedStop = {},
  context: { readonly label?: string; readonly events?: readonly KernelEvent[] } = {},
): StopCondition {
  const stop = 'stop' in stopOrResult ? stopOrResult.stop : stopOrResult;
  const label = context.label ?? 'the run';
  const fail = (what: string, actual: unknown, wanted: unknown): never => {
    throw new AssertionError({ message: `expected ${label} to stop ${what}, but it stopped ${describeStop(stop, context.events ?? [])}`, actual, expected: wanted, operator: 'expectStop' });
  };
  if (stop.reason !== reason) fail(`"${reason}"`, stop.reason, reason);
  if (expected.code !== undefined && stop.code !== expected.code) fail(`"${reason}" with code ${expected.code}`, stop.code, expected.code);
  if (expected.bound !== undefined && stop.bound?.name !== expected.bound) fail(`"${reason}" on bound ${expected.bound}`, stop.bound?.name, expected.bound);
  const detail = expected.detail;
  if (detail !== undefined && !(typeof detail === 'string' ? stop.detail.includes(detail) : detail.test(stop.detail))) {
    fail(`"${reason}" with a detail matching ${typeof detail === 'string' ? JSON.stringify(detail) : String(detail)}`, stop.detail, detail);
  }
  return stop;
}

/** `"max_turns" (turn 3 reached maxTurns=3)`, with the code of an error stop and the run's error events. */
function describeStop(stop: StopCondition, events: readonly KernelEvent[]): string {
  const code = stop.reason === 'error' ? ` [${stop.code}]` : '';
  const errors = events.filter((event) => event.type === 'error').map((event) => `${event.scope}/${event.code}: ${event.message}`);
  return `"${stop.reason}"${code} (${stop.detail})${errors.length === 0 ? '' : `; error events: ${errors.join(' | ')}`}`;
}
