/**
 * The outer loop: one workflow run, one task at a time.
 *
 *   INIT → TASK_SELECT → TASK_EXECUTE → CHECKPOINT → NEXT_TASK → (TASK_SELECT | DONE)
 *
 * A pure definition. TASK_SELECT asks the task source for the next task (a fixed list or a
 * planner), then the policy gate; TASK_EXECUTE invokes the turn machine; CHECKPOINT invokes the
 * checkpoint actor; NEXT_TASK invokes the outer stop evaluator. All of them, and `report`, are
 * supplied by the composition root (src/kernel/provide-machines.ts).
 * The session deadline is a delayed transition on the whole machine: it cancels the running task.
 */
import { and, assign, fromPromise, sendTo, setup, stateIn } from 'xstate';
import { describeError } from '../src/contracts/describe-error.js';
import { errorCodeOfScope } from '../src/contracts/error-scopes.js';
import type { ErrorScope, KernelEventBody } from '../src/contracts/events.js';
import type { TurnOutput } from '../src/contracts/turn-protocol.js';
import type {
  CheckpointInput,
  GateDecision,
  OuterStopInput,
  OuterStopOutput,
  TaskGateInput,
  TaskSourceInput,
  TaskSourceOutput,
  WorkflowContext,
  WorkflowEvent,
  WorkflowInput,
  WorkflowOutput,
} from '../src/contracts/workflow-protocol.js';
import { clearQueue, enqueue } from '../src/contracts/queues.js';
import {
  initialWorkflowContext,
  progressOf,
  recordPick,
  recordTask,
  remainingSessionMs,
  sessionDeadlineStop,
  turnInputFor,
  workflowOutput,
} from '../src/loop/workflow-reducers.js';
import { turnMachine } from './turn.machine.js';

function notProvided(name: string): never {
  throw new Error(`${name} not provided: supply it with workflowMachine.provide() from the composition root`);
}

const workflowSetup = setup({
  types: {
    context: {} as WorkflowContext,
    input: {} as WorkflowInput,
    output: {} as WorkflowOutput,
    events: {} as WorkflowEvent,
    children: {} as { task: 'taskLoop' },
  },
  actors: {
    taskSource: fromPromise<TaskSourceOutput, TaskSourceInput>(async () => notProvided('taskSource')),
    policyGate: fromPromise<GateDecision, TaskGateInput>(async () => notProvided('policyGate')),
    taskLoop: turnMachine,
    checkpointer: fromPromise<{ at: number }, CheckpointInput>(async () => notProvided('checkpointer')),
    outerStopEvaluator: fromPromise<OuterStopOutput, OuterStopInput>(async () => notProvided('outerStopEvaluator')),
  },
  actions: {
    report: (_, _event: KernelEventBody) => notProvided('report action'),
  },
  guards: {
    /** Nothing has decided the run's stop yet. */
    idle: ({ context }) => context.stop === undefined && context.pendingStop === undefined,
  },
  delays: {
    sessionDeadline: ({ context }) => remainingSessionMs(context),
  },
});

/**
 * An actor failed instead of answering with data: report an `error` event naming the part, then
 * end the run `error` with the same text as its detail (the event comes before `workflow_end`).
 */
function failWith(scope: ErrorScope, what: string) {
  return workflowSetup.enqueueActions(({ context, event, enqueue }) => {
    const detail = `${what}: ${describeError((event as { error?: unknown }).error)}`;
    const task = context.active?.task ?? taskOfResult(context.results[context.results.length - 1]);
    enqueue({ type: 'report', params: { type: 'error', scope, message: detail, ...(task === undefined ? {} : { taskId: task.id, taskIndex: task.index }) } });
    enqueue.assign({ stop: { reason: 'error', code: errorCodeOfScope(scope), detail, at: context.lastAt } });
  });
}

/**
 * CHECKPOINT failed. When the task itself ended `error` (its `error` event already explains it,
 * e.g. a turn checkpoint that failed the same way), the run ends with the task's stop and this
 * second failure is a `warning`: one `error` event per `error` end. Otherwise as `failWith`.
 */
const checkpointFailed = workflowSetup.enqueueActions(({ context, event, enqueue }) => {
  const cause = describeError((event as { error?: unknown }).error);
  const last = context.results[context.results.length - 1];
  if (last === undefined || last.stop.reason !== 'error') {
    const detail = `checkpoint failed: ${cause}`;
    const task = taskOfResult(last);
    enqueue({ type: 'report', params: { type: 'error', scope: 'checkpoint', message: detail, ...(task === undefined ? {} : { taskId: task.id, taskIndex: task.index }) } });
    enqueue.assign({ stop: { reason: 'error', code: 'checkpoint_failed', detail, at: context.lastAt } });
    return;
  }
  enqueue({
    type: 'report',
    params: { type: 'warning', message: `checkpoint failed after task "${last.taskId}" stopped error: ${cause}`, taskId: last.taskId, taskIndex: last.index },
  });
  enqueue.assign({ stop: { reason: 'error', code: last.stop.code ?? 'checkpoint_failed', detail: `task "${last.taskId}" stopped: ${last.stop.detail}`, at: context.lastAt } });
});

function taskOfResult(result: WorkflowContext['results'][number] | undefined): { id: string; index: number } | undefined {
  return result === undefined ? undefined : { id: result.taskId, index: result.index };
}

/** Only TASK_EXECUTE has a running task to cancel (a task picked at TASK_SELECT has not started). */
const taskRunning = and([stateIn('TASK_EXECUTE'), 'idle']);

/** A cancel or the session deadline: a running task is cancelled and reports back; otherwise stop now. */
const cancelTask = workflowSetup.sendTo('task', ({ context }) => ({ type: 'CANCEL', stop: context.pendingStop! }));

export const workflowMachine = workflowSetup.createMachine({
  id: 'workflow',
  context: ({ input }) => initialWorkflowContext(input),
  after: {
    sessionDeadline: [
      { guard: taskRunning, actions: [assign(({ context }) => ({ pendingStop: sessionDeadlineStop(context) })), cancelTask] },
      { guard: 'idle', target: '.DONE', actions: assign(({ context }) => ({ stop: sessionDeadlineStop(context) })) },
    ],
  },
  on: {
    ABORT: [
      { guard: taskRunning, actions: [assign(({ event }) => ({ pendingStop: event.stop })), cancelTask] },
      { guard: 'idle', target: '.DONE', actions: assign(({ event }) => ({ stop: event.stop })) },
    ],
    STEER: { actions: assign(({ context, event }) => ({ queues: enqueue(context.queues, 'steering', event.message) })) },
    FOLLOW_UP: { actions: assign(({ context, event }) => ({ queues: enqueue(context.queues, 'followUp', event.message) })) },
    CLEAR_QUEUE: { actions: assign(({ context, event }) => ({ queues: clearQueue(context.queues, event.queue) })) },
  },
  initial: 'INIT',
  states: {
    INIT: {
      always: [{ guard: ({ context }) => context.active !== undefined, target: 'TASK_EXECUTE' }, { target: 'TASK_SELECT' }],
    },
    TASK_SELECT: {
      initial: 'PICK',
      states: {
        PICK: {
          invoke: {
            id: 'taskSource',
            src: 'taskSource',
            input: ({ context }) => ({
              runId: context.runId,
              results: context.results,
              metrics: context.metrics,
              modelCallIndex: context.modelCallIndex,
              queues: context.queues,
              strategy: context.strategy,
            }),
            onDone: [
              { guard: ({ event }) => event.output.kind === 'stop', target: '#workflow.DONE', actions: assign(({ context, event }) => recordPick(context, event.output)) },
              { target: 'GATE', actions: assign(({ context, event }) => recordPick(context, event.output)) },
            ],
            onError: { target: '#workflow.DONE', actions: failWith('internal', 'task source failed') },
          },
        },
        GATE: {
          invoke: {
            id: 'policyGate',
            src: 'policyGate',
            input: ({ context }) => ({ runId: context.runId, task: context.active!.task, metrics: context.metrics }),
            onDone: [
              {
                guard: ({ event }) => event.output.decision === 'allow',
                target: '#workflow.TASK_EXECUTE',
                actions: assign(({ event }) => ({ lastAt: event.output.at })),
              },
              {
                target: '#workflow.DONE',
                actions: assign(({ event }) => ({
                  stop: (event.output as Extract<GateDecision, { stop: unknown }>).stop,
                  active: undefined,
                  lastAt: event.output.at,
                })),
              },
            ],
            onError: { target: '#workflow.DONE', actions: failWith('policy', 'policy gate failed') },
          },
        },
      },
    },
    TASK_EXECUTE: {
      // `task_start` is reported by the task loop itself, first thing (turn machine's entry), so it
      // precedes the task's turns even when a resume enters this state in the initial step.
      invoke: {
        id: 'task',
        src: 'taskLoop',
        input: ({ context }) => turnInputFor(context, context.active!),
        onDone: {
          target: 'CHECKPOINT',
          actions: [
            assign(({ context, event }) => recordTask(context, event.output as TurnOutput)),
            {
              type: 'report',
              params: ({ event }) => {
                const { result } = event.output as TurnOutput;
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
              },
            },
          ],
        },
        onError: { target: 'DONE', actions: failWith('internal', 'internal: task loop failed') },
      },
      on: {
        STEER: { actions: [assign(({ context, event }) => ({ queues: enqueue(context.queues, 'steering', event.message) })), sendTo('task', ({ event }) => event)] },
        FOLLOW_UP: { actions: [assign(({ context, event }) => ({ queues: enqueue(context.queues, 'followUp', event.message) })), sendTo('task', ({ event }) => event)] },
        CLEAR_QUEUE: { actions: [assign(({ context, event }) => ({ queues: clearQueue(context.queues, event.queue) })), sendTo('task', ({ event }) => event)] },
      },
    },
    CHECKPOINT: {
      invoke: {
        id: 'checkpointer',
        src: 'checkpointer',
        input: ({ context }) => ({ runId: context.runId, progress: progressOf(context), task: context.results[context.results.length - 1]! }),
        onDone: [
          { guard: ({ context }) => context.pendingStop !== undefined, target: 'DONE', actions: assign(({ context }) => ({ stop: context.pendingStop })) },
          { target: 'NEXT_TASK', actions: assign(({ event }) => ({ lastAt: event.output.at })) },
        ],
        onError: { target: 'DONE', actions: checkpointFailed },
      },
    },
    NEXT_TASK: {
      invoke: {
        id: 'outerStopEvaluator',
        src: 'outerStopEvaluator',
        input: ({ context }) => ({
          runId: context.runId,
          bounds: context.bounds,
          results: context.results,
          metrics: context.metrics,
          settings: context.settings,
          strategy: context.strategy,
          elapsedBeforeMs: context.elapsedBeforeMs,
          startedAt: context.startedAt,
        }),
        onDone: [
          { guard: ({ event }) => event.output.stop !== undefined, target: 'DONE', actions: assign(({ event }) => ({ stop: event.output.stop, lastAt: event.output.at })) },
          { target: 'TASK_SELECT', actions: assign(({ event }) => ({ lastAt: event.output.at })) },
        ],
        onError: { target: 'DONE', actions: failWith('stop_evaluator', 'outer stop evaluator failed') },
      },
    },
    DONE: {
      type: 'final',
    },
  },
  output: ({ context }) => workflowOutput(context),
});


export type WorkflowMachine = typeof workflowMachine;
