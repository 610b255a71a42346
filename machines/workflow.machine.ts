/**
 * The outer loop: one workflow run, one task at a time.
 *
 *   INIT → TASK_SELECT → TASK_EXECUTE → CHECKPOINT → NEXT_TASK → (TASK_SELECT | DONE)
 *
 * A pure definition that reads as the spec: every guard and every action is named in `setup()`
 * (docs/diagrams.md is generated from it). TASK_SELECT asks the task source for the next task (a
 * fixed list or a planner), then the policy gate; TASK_EXECUTE invokes the turn machine; CHECKPOINT
 * invokes the checkpoint actor; NEXT_TASK invokes the outer stop evaluator. All of them, and
 * `report`, are supplied by the composition root (src/kernel/provide-machines.ts).
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

/** The effects: every one is supplied by the composition root; these defaults fail loudly. */
const effects = setup({
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

const ACTOR_ERROR = 'xstate.error.actor.';

/** Which part failed, by the id of the actor whose error event `stopOnActorError` handles. */
const ACTOR_FAILURES: Readonly<Record<string, { readonly scope: ErrorScope; readonly what: string }>> = {
  taskSource: { scope: 'internal', what: 'task source failed' },
  policyGate: { scope: 'policy', what: 'policy gate failed' },
  task: { scope: 'internal', what: 'internal: task loop failed' },
  outerStopEvaluator: { scope: 'stop_evaluator', what: 'outer stop evaluator failed' },
};

/** The answer an actor's `done` event carries (the guards and actions below name which actor's). */
function outputOf<T>(event: unknown): T {
  return (event as { readonly output: T }).output;
}

/** The loop's own guards and actions: pure, each a call to a reducer of src/loop/workflow-reducers.ts. */
const workflowSetup = effects.extend({
  guards: {
    /** Only TASK_EXECUTE has a running task to cancel (a task picked at TASK_SELECT has not started). */
    taskRunning: and([stateIn('TASK_EXECUTE'), 'idle']),
    /** The run resumes a task that was running when it stopped. */
    resumesTask: ({ context }) => context.active !== undefined,
    noTaskLeft: ({ event }) => outputOf<TaskSourceOutput>(event).kind === 'stop',
    taskAllowed: ({ event }) => outputOf<GateDecision>(event).decision === 'allow',
    /** A cancel or the session deadline came while the task ran: the run ends with it once the task is saved. */
    stopPending: ({ context }) => context.pendingStop !== undefined,
    outerStopDecided: ({ event }) => outputOf<OuterStopOutput>(event).stop !== undefined,
  },
  actions: {
    /** A cancel or the session deadline: the running task is cancelled and reports back (TASK_EXECUTE → CHECKPOINT → DONE). */
    cancelTask: sendTo('task', ({ context }) => ({ type: 'CANCEL', stop: context.pendingStop! })),
    holdDeadlineStop: assign(({ context }) => ({ pendingStop: sessionDeadlineStop(context) })),
    holdAbortStop: assign(({ event }) => (event.type === 'ABORT' ? { pendingStop: event.stop } : {})),
    stopAtSessionDeadline: assign(({ context }) => ({ stop: sessionDeadlineStop(context) })),
    stopOnAbort: assign(({ event }) => (event.type === 'ABORT' ? { stop: event.stop } : {})),
    queueSteering: assign(({ context, event }) => (event.type === 'STEER' ? { queues: enqueue(context.queues, 'steering', event.message) } : {})),
    queueFollowUp: assign(({ context, event }) => (event.type === 'FOLLOW_UP' ? { queues: enqueue(context.queues, 'followUp', event.message) } : {})),
    clearQueue: assign(({ context, event }) => (event.type === 'CLEAR_QUEUE' ? { queues: clearQueue(context.queues, event.queue) } : {})),
    /** STEER, FOLLOW_UP and CLEAR_QUEUE reach the running task too. */
    forwardToTask: sendTo('task', ({ event }) => event),
    /** PICK answered: the next task, or the stop that ends the run when there is none. */
    recordPick: assign(({ context, event }) => recordPick(context, outputOf<TaskSourceOutput>(event))),
    /** An actor answered at this clock time. */
    recordAnswerTime: assign(({ event }) => ({ lastAt: outputOf<{ at: number }>(event).at })),
    stopOnGateRefusal: assign(({ event }) => {
      const refusal = outputOf<Extract<GateDecision, { stop: unknown }>>(event);
      return { stop: refusal.stop, active: undefined, lastAt: refusal.at };
    }),
    recordTask: assign(({ context, event }) => recordTask(context, outputOf<TurnOutput>(event))),
    reportTaskEnd: effects.enqueueActions(({ event, enqueue: queue }) => queue({ type: 'report', params: taskEnd(outputOf<TurnOutput>(event)) })),
    stopWithPendingStop: assign(({ context }) => ({ stop: context.pendingStop })),
    stopOnOuterStop: assign(({ event }) => {
      const decided = outputOf<OuterStopOutput>(event);
      return { stop: decided.stop, lastAt: decided.at };
    }),
    /**
     * An actor failed instead of answering with data: report an `error` event naming the part, then
     * end the run `error` with the same text as its detail (the event comes before `workflow_end`).
     */
    stopOnActorError: effects.enqueueActions(({ context, event, enqueue: queue }) => {
      const failure = ACTOR_FAILURES[event.type.slice(ACTOR_ERROR.length)] ?? { scope: 'internal', what: 'internal: an actor failed' };
      const detail = `${failure.what}: ${describeError((event as { error?: unknown }).error)}`;
      const task = context.active?.task ?? taskOfResult(context.results[context.results.length - 1]);
      queue({ type: 'report', params: { type: 'error', scope: failure.scope, message: detail, ...(task === undefined ? {} : { taskId: task.id, taskIndex: task.index }) } });
      queue.assign({ stop: { reason: 'error', code: errorCodeOfScope(failure.scope), detail, at: context.lastAt } });
    }),
    /**
     * CHECKPOINT failed. When the task itself ended `error` (its `error` event already explains it,
     * e.g. a turn checkpoint that failed the same way), the run ends with the task's stop and this
     * second failure is a `warning`: one `error` event per `error` end. Otherwise as `stopOnActorError`.
     */
    stopOnCheckpointError: effects.enqueueActions(({ context, event, enqueue: queue }) => {
      const cause = describeError((event as { error?: unknown }).error);
      const last = context.results[context.results.length - 1];
      if (last === undefined || last.stop.reason !== 'error') {
        const detail = `checkpoint failed: ${cause}`;
        const task = taskOfResult(last);
        queue({ type: 'report', params: { type: 'error', scope: 'checkpoint', message: detail, ...(task === undefined ? {} : { taskId: task.id, taskIndex: task.index }) } });
        queue.assign({ stop: { reason: 'error', code: 'checkpoint_failed', detail, at: context.lastAt } });
        return;
      }
      queue({
        type: 'report',
        params: { type: 'warning', message: `checkpoint failed after task "${last.taskId}" stopped error: ${cause}`, taskId: last.taskId, taskIndex: last.index },
      });
      queue.assign({ stop: { reason: 'error', code: last.stop.code ?? 'checkpoint_failed', detail: `task "${last.taskId}" stopped: ${last.stop.detail}`, at: context.lastAt } });
    }),
  },
});

function taskOfResult(result: WorkflowContext['results'][number] | undefined): { id: string; index: number } | undefined {
  return result === undefined ? undefined : { id: result.taskId, index: result.index };
}

/** `task_end`: the task's stop and its counters at the stop. */
function taskEnd({ result }: TurnOutput): KernelEventBody {
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

export const workflowMachine = workflowSetup.createMachine({
  id: 'workflow',
  context: ({ input }) => initialWorkflowContext(input),
  after: {
    sessionDeadline: [
      { guard: 'taskRunning', actions: ['holdDeadlineStop', 'cancelTask'] },
      { guard: 'idle', target: '.DONE', actions: 'stopAtSessionDeadline' },
    ],
  },
  on: {
    ABORT: [
      { guard: 'taskRunning', actions: ['holdAbortStop', 'cancelTask'] },
      { guard: 'idle', target: '.DONE', actions: 'stopOnAbort' },
    ],
    STEER: { actions: 'queueSteering' },
    FOLLOW_UP: { actions: 'queueFollowUp' },
    CLEAR_QUEUE: { actions: 'clearQueue' },
  },
  initial: 'INIT',
  states: {
    INIT: {
      always: [{ guard: 'resumesTask', target: 'TASK_EXECUTE' }, { target: 'TASK_SELECT' }],
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
              { guard: 'noTaskLeft', target: '#workflow.DONE', actions: 'recordPick' },
              { target: 'GATE', actions: 'recordPick' },
            ],
            onError: { target: '#workflow.DONE', actions: 'stopOnActorError' },
          },
        },
        GATE: {
          invoke: {
            id: 'policyGate',
            src: 'policyGate',
            input: ({ context }) => ({ runId: context.runId, task: context.active!.task, metrics: context.metrics }),
            onDone: [
              { guard: 'taskAllowed', target: '#workflow.TASK_EXECUTE', actions: 'recordAnswerTime' },
              { target: '#workflow.DONE', actions: 'stopOnGateRefusal' },
            ],
            onError: { target: '#workflow.DONE', actions: 'stopOnActorError' },
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
          actions: ['recordTask', 'reportTaskEnd'],
        },
        onError: { target: 'DONE', actions: 'stopOnActorError' },
      },
      on: {
        STEER: { actions: ['queueSteering', 'forwardToTask'] },
        FOLLOW_UP: { actions: ['queueFollowUp', 'forwardToTask'] },
        CLEAR_QUEUE: { actions: ['clearQueue', 'forwardToTask'] },
      },
    },
    CHECKPOINT: {
      invoke: {
        id: 'checkpointer',
        src: 'checkpointer',
        input: ({ context }) => ({ runId: context.runId, progress: progressOf(context), task: context.results[context.results.length - 1]! }),
        onDone: [
          { guard: 'stopPending', target: 'DONE', actions: 'stopWithPendingStop' },
          { target: 'NEXT_TASK', actions: 'recordAnswerTime' },
        ],
        onError: { target: 'DONE', actions: 'stopOnCheckpointError' },
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
          { guard: 'outerStopDecided', target: 'DONE', actions: 'stopOnOuterStop' },
          { target: 'TASK_SELECT', actions: 'recordAnswerTime' },
        ],
        onError: { target: 'DONE', actions: 'stopOnActorError' },
      },
    },
    DONE: {
      type: 'final',
    },
  },
  output: ({ context }) => workflowOutput(context),
});

export type WorkflowMachine = typeof workflowMachine;
