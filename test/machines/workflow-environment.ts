/**
 * What the workflow machine's actors can answer, state by state, for the model-based test. The
 * outer stop evaluator is the kernel's own halt rule and built-in conditions (src/stop/), plus what
 * a user evaluator may add, so a walk only goes on where the kernel would let it.
 */
import type { AnyEventObject, AnyMachineSnapshot } from 'xstate';
import type { StopCondition, StopReason } from 'dualloop';
import { pickStop } from '../../src/contracts/stop.js';
import type { WorkflowContext, WorkflowInput } from '../../src/contracts/workflow-protocol.js';
import { haltedByTask, OUTER_CONDITIONS } from '../../src/stop/outer-conditions.js';
import { stop, taskOutput, TURN_BOUNDS } from './turn-fixtures.js';

/** The fixed task list is longer than the step bound, so that both end a walk. */
export const TASKS = 4;
/** A normal task spends 2 tokens, a heavy one 5. */
export const OUTER_BOUNDS = { maxWorkflowSteps: 3, maxSessionRuntimeMs: 10_000, maxReplans: 3, maxTokens: 7 };

export const workflowInput: WorkflowInput = {
  runId: 'run',
  bounds: OUTER_BOUNDS,
  settings: { onTaskStop: 'halt', turn: { wrapUpOnBound: false, steeringMode: 'one-at-a-time', followUpMode: 'one-at-a-time' }, graph: false, maxParallelTasks: 1 },
  progress: {
    results: [],
    metrics: { workflowSteps: 0, turns: 0, toolCalls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0, runtimeMs: 0 },
    queues: { steering: [], followUp: [] },
    modelCallIndex: 0,
    elapsedMs: 0,
  },
  startedAt: 0,
};

function nextTask(context: WorkflowContext) {
  const index = context.results.length;
  return { task: { id: `task-${index + 1}`, index, description: `step ${index + 1}`, bounds: TURN_BOUNDS }, point: taskOutput('planner_stopped').resumePoint };
}

/** The running task's answer (a list's turn machine is `task`): a cancelled task reports the stop it was cancelled with. */
function taskDone(context: WorkflowContext, reason: StopReason, tokens = 2) {
  const output = taskOutput(context.pendingStop?.reason ?? reason);
  const usage = { inputTokens: tokens - 1, outputTokens: 1 };
  const { task } = context.branches.running[0]!;
  return { type: 'xstate.done.actor.task', output: { ...output, result: { ...output.result, taskId: task.id, index: task.index, usage } } };
}

/** The outer stop evaluator's answer: the halt rule first, then the built-in conditions and a user verdict. */
export function outerDecision(context: WorkflowContext, options: { elapsedMs?: number; userError?: boolean } = {}): StopCondition | undefined {
  const check = {
    bounds: context.bounds,
    results: context.results,
    metrics: context.metrics,
    onTaskStop: context.settings.onTaskStop,
    remaining: TASKS - context.results.length,
    elapsedMs: options.elapsedMs ?? 0,
  };
  const user = options.userError === true ? { reason: 'error' as const, code: 'stop_evaluator_failed' as const, detail: 'outer evaluator threw' } : undefined;
  const chosen = haltedByTask(check) ?? pickStop([...OUTER_CONDITIONS.map((condition) => condition(check)), user]);
  return chosen === undefined ? undefined : { ...chosen, at: 1 };
}

function stateOf(snapshot: AnyMachineSnapshot): string {
  const value = snapshot.value as string | { TASK_SELECT: string };
  return typeof value === 'string' ? value : `TASK_SELECT.${value.TASK_SELECT}`;
}

/** Every answer the actors may give in this state. */
export function workflowEvents(snapshot: AnyMachineSnapshot): AnyEventObject[] {
  if (snapshot.status === 'done') return [];
  const context = snapshot.context as WorkflowContext;
  const anywhere = [{ type: 'ABORT', stop: stop('context_canceled') }, { type: 'xstate.after.sessionDeadline.workflow' }];
  switch (stateOf(snapshot)) {
    case 'TASK_SELECT.PICK':
      return [
        ...anywhere,
        ...(context.results.length < TASKS ? [{ type: 'xstate.done.actor.taskSource', output: { kind: 'task', active: nextTask(context) } }] : []),
        { type: 'xstate.done.actor.taskSource', output: { kind: 'stop', stop: stop('goal_achieved') } },
        { type: 'xstate.done.actor.taskSource', output: { kind: 'stop', stop: stop('max_replans') } },
        { type: 'xstate.error.actor.taskSource', error: new Error('planner down') },
      ];
    case 'TASK_SELECT.GATE':
      return [
        ...anywhere,
        { type: 'xstate.done.actor.policyGate', output: { decision: 'allow', at: 1 } },
        { type: 'xstate.done.actor.policyGate', output: { decision: 'deny', stop: stop('policy_denied'), at: 1 } },
        { type: 'xstate.done.actor.policyGate', output: { decision: 'require_approval', stop: stop('awaiting_approval'), at: 1 } },
        { type: 'xstate.error.actor.policyGate', error: new Error('gate down') },
      ];
    case 'TASK_EXECUTE':
      return [
        ...anywhere,
        ...(['planner_stopped', 'max_turns', 'error'] as const).map((reason) => taskDone(context, reason)),
        taskDone(context, 'planner_stopped', 5),
        { type: 'xstate.error.actor.task', error: new Error('crashed') },
      ];
    case 'CHECKPOINT':
      return [...anywhere, { type: 'xstate.done.actor.checkpointer', output: { at: 1 } }, { type: 'xstate.error.actor.checkpointer', error: new Error('disk full') }];
    case 'NEXT_TASK':
      return [
        ...anywhere,
        ...[0, OUTER_BOUNDS.maxSessionRuntimeMs].flatMap((elapsedMs) =>
          [false, true].map((userError) => {
            const decided = outerDecision(context, { elapsedMs, userError });
            return { type: 'xstate.done.actor.outerStopEvaluator', output: decided === undefined ? { at: 1 } : { stop: decided, at: 1 } };
          }),
        ),
        { type: 'xstate.error.actor.outerStopEvaluator', error: new Error('evaluator crashed') },
      ];
    default:
      return anywhere;
  }
}

/** Tasks that always finish, a gate that always allows, no time passing: only the bounds and the list end the run. */
export function greedyWorkflowEvent(snapshot: AnyMachineSnapshot): AnyEventObject {
  const context = snapshot.context as WorkflowContext;
  switch (stateOf(snapshot)) {
    case 'TASK_SELECT.PICK':
      return context.results.length < TASKS
        ? { type: 'xstate.done.actor.taskSource', output: { kind: 'task', active: nextTask(context) } }
        : { type: 'xstate.done.actor.taskSource', output: { kind: 'stop', stop: stop('goal_achieved') } };
    case 'TASK_SELECT.GATE':
      return { type: 'xstate.done.actor.policyGate', output: { decision: 'allow', at: 1 } };
    case 'TASK_EXECUTE':
      return taskDone(context, 'planner_stopped');
    case 'CHECKPOINT':
      return { type: 'xstate.done.actor.checkpointer', output: { at: 1 } };
    case 'NEXT_TASK': {
      const decided = outerDecision(context);
      return { type: 'xstate.done.actor.outerStopEvaluator', output: decided === undefined ? { at: 1 } : { stop: decided, at: 1 } };
    }
    default:
      throw new Error(`the workflow machine rests in ${stateOf(snapshot)}, which no actor answers`);
  }
}

export function serializeWorkflow(snapshot: AnyMachineSnapshot): string {
  const context = snapshot.context as WorkflowContext;
  return JSON.stringify([
    snapshot.value,
    snapshot.status,
    context.stop?.reason,
    context.pendingStop?.reason,
    context.results.map((result) => result.stop.reason),
    context.metrics.inputTokens + context.metrics.outputTokens,
    context.branches.picked.length,
    context.branches.running.length,
    context.branches.finished.length,
  ]);
}

export { stateOf };
