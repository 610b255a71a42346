/**
 * The outer loop: one workflow run, its tasks one at a time (a list, a plan) or several at once
 * (a graph, up to `maxParallelTasks`).
 *
 *   INIT → TASK_SELECT → TASK_EXECUTE → CHECKPOINT → NEXT_TASK → (TASK_SELECT | TASK_EXECUTE | DONE)
 *
 * A pure definition that reads as the spec: every guard and every action is named in `setup()`
 * (docs/diagrams.md is generated from it). TASK_SELECT asks the task source for the ready tasks (a
 * list's next, a graph's ready set, a planner's step), then the policy gate for each, and spawns a
 * turn machine per allowed task (`task`, a graph's `task.<taskId>`); TASK_EXECUTE waits until one ends; CHECKPOINT
 * invokes the checkpoint actor for it; NEXT_TASK invokes the outer stop evaluator. All of them,
 * and `report`, are supplied by the composition root (src/kernel/provide-machines.ts). A task's
 * end is handled wherever the workflow is: its result is recorded at once and its checkpoint
 * comes when TASK_EXECUTE is next entered. The session deadline and a cancel are transitions on
 * the whole machine: they cancel every running task, and the workflow ends once each reported.
 */
import { assign, fromPromise, setup } from 'xstate';
import { describeError } from '../src/contracts/describe-error.js';
import { errorCodeOfScope } from '../src/contracts/error-scopes.js';
import type { KernelEventBody } from '../src/contracts/events.js';
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
  branchId,
  busyTaskIds,
  handOver,
  tasksFor,
  waitsInQueue,
  dropFinished,
  dropPicked,
  finishedResult,
  freeSlots,
  recordBranchEnd,
  recordPick,
  refusePicked,
  startPicked,
} from '../src/loop/branch-reducers.js';
import { actorFailure, taskEnd, taskOfResult } from '../src/loop/workflow-reports.js';
import { initialWorkflowContext, progressOf, remainingSessionMs, sessionDeadlineStop, turnInputFor, workflowOutput } from '../src/loop/workflow-reducers.js';
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

/** The answer an actor's `done` event carries (the guards and actions below name which actor's). */
function outputOf<T>(event: unknown): T {
  return (event as { readonly output: T }).output;
}

/** The loop's own guards and actions: pure, each a call to a reducer of src/loop/. */
const workflowSetup = effects.extend({
  guards: {
    /** Tasks run, and nothing has decided the run's stop yet: a cancel or deadline cancels them. */
    tasksRunning: ({ context }) => context.branches.running.length > 0 && context.stop === undefined && context.pendingStop === undefined,
    /** The run resumes tasks that were running (or halted) when it stopped. */
    resumesTasks: ({ context }) => context.branches.running.length > 0,
    /** …and another task may start beside them (a graph). */
    resumesWithFreeSlot: ({ context }) => context.branches.running.length > 0 && freeSlots(context) > 0,
    noTaskLeft: ({ event }) => outputOf<TaskSourceOutput>(event).kind === 'stop',
    /** The source has nothing to start now (a graph waits for a running task to end). */
    picksNone: ({ event }) => {
      const output = outputOf<TaskSourceOutput>(event);
      return output.kind === 'ready' && output.start.length === 0;
    },
    /** Picked tasks still wait for the policy gate. */
    picksLeft: ({ context }) => context.branches.picked.length > 0,
    taskAllowed: ({ event }) => outputOf<GateDecision>(event).decision === 'allow',
    /** A graph: a task the gate refuses ends alone; the other tasks go on. */
    inGraph: ({ context }) => context.settings.graph,
    /** A cancel, deadline or outer stop is waiting for the running tasks to report. */
    stopPending: ({ context }) => context.pendingStop !== undefined,
    /** A task ended and owes its checkpoint. */
    taskEnded: ({ context }) => context.branches.finished.length > 0,
    /** A pending stop ends the run: nothing runs any more and nothing owes a checkpoint. */
    pendingStopReady: ({ context }) => context.pendingStop !== undefined && context.branches.running.length === 0 && context.branches.finished.length === 0,
    /** The checkpoint just saved was the last report a pending stop waited for. */
    lastReportOfPendingStop: ({ context }) => context.pendingStop !== undefined && context.branches.running.length === 0 && context.branches.finished.length <= 1,
    /** Nothing runs, nothing is owed and nothing is pending: only the source can say what is next. */
    nothingToWaitFor: ({ context }) => context.pendingStop === undefined && context.branches.running.length === 0 && context.branches.finished.length === 0,
    /** The outer stop evaluator decided a stop and no task runs: the run ends now. */
    outerStopEndsRun: ({ context, event }) => outputOf<OuterStopOutput>(event).stop !== undefined && context.branches.running.length === 0,
    outerStopDecided: ({ event }) => outputOf<OuterStopOutput>(event).stop !== undefined,
    /** Another task may start now, and no ended task owes its checkpoint first. */
    mayPick: ({ context }) => freeSlots(context) > 0 && context.branches.finished.length === 0,
  },
  actions: {
    /** A cancel, the session deadline or an outer stop: every running task is cancelled and reports back (→ CHECKPOINT → DONE). */
    cancelTasks: effects.enqueueActions(({ context, enqueue: queue }) => {
      for (const active of context.branches.running) queue.sendTo(branchId(context, active.task.id), { type: 'CANCEL', stop: context.pendingStop! });
    }),
    holdDeadlineStop: assign(({ context }) => ({ pendingStop: sessionDeadlineStop(context) })),
    holdAbortStop: assign(({ event }) => (event.type === 'ABORT' ? { pendingStop: event.stop } : {})),
    holdOuterStop: assign(({ event }) => {
      const decided = outputOf<OuterStopOutput>(event);
      return { pendingStop: decided.stop, lastAt: decided.at };
    }),
    stopAtSessionDeadline: assign(({ context }) => ({ stop: sessionDeadlineStop(context) })),
    stopOnAbort: assign(({ event }) => (event.type === 'ABORT' ? { stop: event.stop } : {})),
    queueSteering: assign(({ context, event }) => (event.type === 'STEER' && waitsInQueue(context, event.message) ? { queues: enqueue(context.queues, 'steering', event.message) } : {})),
    queueFollowUp: assign(({ context, event }) => (event.type === 'FOLLOW_UP' && waitsInQueue(context, event.message) ? { queues: enqueue(context.queues, 'followUp', event.message) } : {})),
    clearQueue: assign(({ context, event }) => (event.type === 'CLEAR_QUEUE' ? { queues: clearQueue(context.queues, event.queue) } : {})),
    /** STEER and FOLLOW_UP reach the running tasks they are for, CLEAR_QUEUE every running task. */
    forwardToTasks: effects.enqueueActions(({ context, event, enqueue: queue }) => {
      const message = event.type === 'STEER' || event.type === 'FOLLOW_UP' ? event.message : undefined;
      for (const active of tasksFor(context, message)) queue.sendTo(branchId(context, active.task.id), event);
    }),
    /** PICK answered: the tasks to gate (and those that ended without running), or the stop that ends the run. */
    recordPick: assign(({ context, event }) => recordPick(context, outputOf<TaskSourceOutput>(event))),
    /** Tasks that ended without running (a graph's dependency failed, a fan-out collected) are reported as tasks that started and ended. */
    reportSettled: effects.enqueueActions(({ event, enqueue: queue }) => {
      const output = outputOf<TaskSourceOutput>(event);
      if (output.kind !== 'ready') return;
      for (const result of output.settled) {
        queue({ type: 'report', params: { type: 'task_start', taskId: result.taskId, taskIndex: result.index, description: result.description } });
        queue({ type: 'report', params: taskEnd({ result }) });
      }
    }),
    /** An actor answered at this clock time. */
    recordAnswerTime: assign(({ event }) => ({ lastAt: outputOf<{ at: number }>(event).at })),
    /** Resume: the tasks that were running start again from their resume points, each with the waiting messages for it. */
    startRestoredTasks: effects.enqueueActions(({ context, enqueue: queue }) => {
      let current = context;
      for (const active of context.branches.running) {
        queue.spawnChild('taskLoop', { id: branchId(current, active.task.id), input: turnInputFor(current, active) });
        current = { ...current, ...handOver(current, active.task.id) };
      }
      if (current.queues !== context.queues) queue.assign({ queues: current.queues });
    }),
    /** The gate allowed the first picked task: its turn machine starts, its clock at the decision. */
    startPickedTask: effects.enqueueActions(({ context, event, enqueue: queue }) => {
      const active = context.branches.picked[0];
      if (active === undefined) return;
      const at = outputOf<GateDecision>(event).at;
      queue.assign(startPicked(context, at));
      queue.spawnChild('taskLoop', { id: branchId(context, active.task.id), input: turnInputFor({ ...context, lastAt: at }, active) });
    }),
    stopOnGateRefusal: assign(({ context, event }) => {
      const refusal = outputOf<Extract<GateDecision, { stop: unknown }>>(event);
      return { stop: refusal.stop, lastAt: refusal.at, ...dropPicked(context) };
    }),
    /** A graph's gate refused a task: it ends there (reported as started and ended); the others go on. */
    refusePickedTask: effects.enqueueActions(({ context, event, enqueue: queue }) => {
      const refusal = outputOf<Extract<GateDecision, { stop: unknown }>>(event);
      const update = refusePicked(context, refusal);
      const result = update.results?.[update.results.length - 1];
      queue.assign(update);
      if (result === undefined) return;
      queue({ type: 'report', params: { type: 'task_start', taskId: result.taskId, taskIndex: result.index, description: result.description } });
      queue({ type: 'report', params: taskEnd({ result }) });
    }),
    dropPicked: assign(({ context }) => dropPicked(context)),
    /**
     * A task's turn machine ended: record its result, report its end, and let go of the machine (a
     * finished child would otherwise stay among the workflow's children until the run ends).
     */
    recordTaskEnd: effects.enqueueActions(({ context, event, enqueue: queue }) => {
      const output = outputOf<TurnOutput>(event);
      queue.assign(recordBranchEnd(context, output));
      queue({ type: 'report', params: taskEnd(output) });
      queue.stopChild(branchId(context, output.result.taskId));
    }),
    dropFinished: assign(({ context }) => dropFinished(context)),
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
      const failure = actorFailure(event.type);
      const detail = `${failure.what}: ${describeError((event as { error?: unknown }).error)}`;
      const task = context.branches.picked[0]?.task ?? context.branches.running[0]?.task ?? taskOfResult(context.results[context.results.length - 1]);
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
      const last = context.branches.finished.length === 0 ? undefined : finishedResult(context);
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

export const workflowMachine = workflowSetup.createMachine({
  id: 'workflow',
  context: ({ input }) => initialWorkflowContext(input),
  after: {
    sessionDeadline: [
      { guard: 'tasksRunning', actions: ['holdDeadlineStop', 'cancelTasks'] },
      { guard: 'idle', target: '.DONE', actions: 'stopAtSessionDeadline' },
    ],
  },
  on: {
    ABORT: [
      { guard: 'tasksRunning', actions: ['holdAbortStop', 'cancelTasks'] },
      { guard: 'idle', target: '.DONE', actions: 'stopOnAbort' },
    ],
    STEER: { actions: ['queueSteering', 'forwardToTasks'] },
    FOLLOW_UP: { actions: ['queueFollowUp', 'forwardToTasks'] },
    CLEAR_QUEUE: { actions: ['clearQueue', 'forwardToTasks'] },
    // A task's turn machine (`task`, a graph's `task.<taskId>`), wherever the workflow is: its
    // result now, its checkpoint at the next TASK_EXECUTE.
    'xstate.done.actor.task': { actions: 'recordTaskEnd' },
    'xstate.done.actor.task.*': { actions: 'recordTaskEnd' },
    'xstate.error.actor.task': { target: '.DONE', actions: 'stopOnActorError' },
    'xstate.error.actor.task.*': { target: '.DONE', actions: 'stopOnActorError' },
  },
  initial: 'INIT',
  states: {
    INIT: {
      always: [
        { guard: 'resumesWithFreeSlot', target: 'TASK_SELECT', actions: 'startRestoredTasks' },
        { guard: 'resumesTasks', target: 'TASK_EXECUTE', actions: 'startRestoredTasks' },
        { target: 'TASK_SELECT' },
      ],
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
              busy: busyTaskIds(context),
              slots: freeSlots(context),
              running: context.branches.running.length,
              maxWorkflowSteps: context.bounds.maxWorkflowSteps,
              metrics: context.metrics,
              modelCallIndex: context.modelCallIndex,
              queues: context.queues,
              strategy: context.strategy,
            }),
            onDone: [
              { guard: 'stopPending', target: '#workflow.TASK_EXECUTE' },
              { guard: 'noTaskLeft', target: '#workflow.DONE', actions: 'recordPick' },
              { guard: 'picksNone', target: '#workflow.TASK_EXECUTE', actions: ['recordPick', 'reportSettled'] },
              { target: 'GATE', actions: ['recordPick', 'reportSettled'] },
            ],
            onError: { target: '#workflow.DONE', actions: 'stopOnActorError' },
          },
        },
        GATE: {
          invoke: {
            id: 'policyGate',
            src: 'policyGate',
            input: ({ context }) => ({ runId: context.runId, task: context.branches.picked[0]!.task, metrics: context.metrics }),
            onDone: [
              { guard: 'stopPending', target: '#workflow.TASK_EXECUTE', actions: 'dropPicked' },
              { guard: 'taskAllowed', target: 'NEXT_PICKED', actions: 'startPickedTask' },
              { guard: 'inGraph', target: 'NEXT_PICKED', actions: 'refusePickedTask' },
              { target: '#workflow.DONE', actions: 'stopOnGateRefusal' },
            ],
            onError: { target: '#workflow.DONE', actions: 'stopOnActorError' },
          },
        },
        /** The ready set, one task at a time: the next picked task goes to the gate. */
        NEXT_PICKED: {
          always: [{ guard: 'picksLeft', target: 'GATE' }, { target: '#workflow.TASK_EXECUTE' }],
        },
      },
    },
    TASK_EXECUTE: {
      // `task_start` is reported by each task's turn machine itself, first thing (its entry), so it
      // precedes the task's turns even when a resume starts it in the initial step.
      always: [
        { guard: 'taskEnded', target: 'CHECKPOINT' },
        { guard: 'pendingStopReady', target: 'DONE', actions: 'stopWithPendingStop' },
        { guard: 'nothingToWaitFor', target: 'TASK_SELECT' },
      ],
    },
    CHECKPOINT: {
      invoke: {
        id: 'checkpointer',
        src: 'checkpointer',
        input: ({ context }) => ({
          runId: context.runId,
          progress: progressOf(context),
          task: finishedResult(context),
          halted: context.branches.halted.map((active) => active.task.id),
        }),
        onDone: [
          { guard: 'lastReportOfPendingStop', target: 'DONE', actions: ['dropFinished', 'stopWithPendingStop'] },
          { guard: 'stopPending', target: 'TASK_EXECUTE', actions: 'dropFinished' },
          { target: 'NEXT_TASK', actions: ['dropFinished', 'recordAnswerTime'] },
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
          running: context.branches.running.length,
          bounds: context.bounds,
          results: context.results,
          metrics: context.metrics,
          settings: context.settings,
          strategy: context.strategy,
          elapsedBeforeMs: context.elapsedBeforeMs,
          startedAt: context.startedAt,
        }),
        onDone: [
          { guard: 'stopPending', target: 'TASK_EXECUTE' },
          { guard: 'outerStopEndsRun', target: 'DONE', actions: 'stopOnOuterStop' },
          { guard: 'outerStopDecided', target: 'TASK_EXECUTE', actions: ['holdOuterStop', 'cancelTasks'] },
          { guard: 'mayPick', target: 'TASK_SELECT', actions: 'recordAnswerTime' },
          { target: 'TASK_EXECUTE', actions: 'recordAnswerTime' },
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
