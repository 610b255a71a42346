/**
 * What the workflow machine reports about tasks and failed actors: the `task_end` body, the task an
 * error is about, and which part failed by the id of the actor whose error event it handles. Pure.
 */
import type { ErrorScope, KernelEventBody } from '../contracts/events.js';
import type { TaskResult } from '../contracts/results.js';
import type { TurnOutput } from '../contracts/turn-protocol.js';

const ACTOR_ERROR = 'xstate.error.actor.';

/** Which part failed, by actor id (a task's turn machine: `task`, a graph's `task.<taskId>`). */
const ACTOR_FAILURES: Readonly<Record<string, { readonly scope: ErrorScope; readonly what: string }>> = {
  taskSource: { scope: 'internal', what: 'task source failed' },
  policyGate: { scope: 'policy', what: 'policy gate failed' },
  task: { scope: 'internal', what: 'internal: task loop failed' },
  outerStopEvaluator: { scope: 'stop_evaluator', what: 'outer stop evaluator failed' },
};

/** The part an `xstate.error.actor.<id>` event says failed. */
export function actorFailure(eventType: string): { readonly scope: ErrorScope; readonly what: string } {
  const actorId = eventType.slice(ACTOR_ERROR.length);
  return ACTOR_FAILURES[actorId.startsWith('task.') ? 'task' : actorId] ?? { scope: 'internal', what: 'internal: an actor failed' };
}

export function taskOfResult(result: TaskResult | undefined): { id: string; index: number } | undefined {
  return result === undefined ? undefined : { id: result.taskId, index: result.index };
}

/** `task_end`: the task's stop and its counters at the stop. */
export function taskEnd({ result }: Pick<TurnOutput, 'result'>): KernelEventBody {
  return {
    type: 'task_end',
    taskId: result.taskId,
    taskIndex: result.index,
    stop: result.stop,
    counters: {
      turns: result.turnCount,
      toolCalls: result.toolCalls,
      inputTokens: result.usage.inputTokens,
      outputTokens: result.usage.outputTokens,
      costUsd: result.costUsd,
      runtimeMs: result.runtimeMs,
    },
  };
}
