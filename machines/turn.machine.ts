/**
 * The inner loop: one task, one model call per turn.
 *
 *   TURN_INIT → PLAN → ACT → OBSERVE → CHECK_STOP → (NEXT_TURN → TURN_INIT | DONE)
 *
 * A pure definition. The model caller, tool runner and stop evaluator are long-lived service
 * actors invoked once per task and answering with events (creating an actor per turn is the
 * cost this design avoids); the compactor is spawned the first time it asks to run and then kept
 * for the rest of the task (one actor, not one per turn). Events to the
 * outside world (`report`) and per-turn checkpoints (`saveTurnCheckpoint`) are named actions.
 * All of them are supplied by the composition root (src/kernel/provide-machines.ts).
 * The task deadline is a delayed transition on the whole machine.
 */
import { describeError } from '../src/errors.js';
import { assign, fromCallback, sendTo, setup } from 'xstate';
import type { KernelEventBody } from '../src/contracts/events.js';
import type { Message } from '../src/contracts/messages.js';
import type { StopCondition } from '../src/contracts/stop.js';
import type {
  ModelCallRequest,
  StopEvaluateRequest,
  ToolRunRequest,
  TurnCheckpoint,
  TurnContext,
  TurnEvent,
  TurnInput,
  TurnOutput,
} from '../src/contracts/turn-protocol.js';
import {
  beginTurn,
  beginWrapUp,
  clearMessages,
  enqueueMessage,
  markResumePoint,
  deadlineStop,
  toolCallsWhenCut,
  finalizeTask,
  finishTurn,
  hasToolCalls,
  initialTurnContext,
  observeToolResults,
  recordModelResult,
  recordWrapUp,
  remainingRuntimeMs,
  resumesPendingTurn,
  stopState,
} from '../src/loop/turn-reducers.js';

/** What every turn service is started with. */
export interface TurnServiceInput {
  readonly runId: string;
  readonly taskId: string;
  readonly taskIndex: number;
}

/** What the `needsCompaction` guard decides on: the transcript the next model call would see. */
export interface CompactionCheck {
  readonly messages: readonly Message[];
  readonly turn: number;
}

/** What the compactor is asked, each time `needsCompaction` says yes. */
export interface CompactRequest {
  readonly type: 'compactor.compact';
  readonly messages: readonly Message[];
  readonly turn: number;
}

/** The compactor's answers (it is spawned, not invoked, so they are declared here). */
type CompactorEvent =
  | { readonly type: 'COMPACTED'; readonly messages: readonly Message[] }
  /** `message` says what went wrong in full (`compact threw: …`, `compact returned no list of messages …`). */
  | { readonly type: 'COMPACTION_FAILED'; readonly message: string };


function notProvided(name: string): never {
  throw new Error(`${name} not provided: supply it with turnMachine.provide() from the composition root`);
}

const WRAP_UP_REASONS = new Set<StopCondition['reason']>(['max_turns', 'max_tool_calls', 'loop_detected']);

const turnSetup = setup({
  types: {
    context: {} as TurnContext,
    input: {} as TurnInput,
    output: {} as TurnOutput,
    events: {} as TurnEvent | CompactorEvent,
    children: {} as { model: 'modelCaller'; tools: 'toolRunner'; stop: 'innerStopEvaluator'; compactor: 'compactor' },
  },
  actors: {
    modelCaller: fromCallback<ModelCallRequest, TurnServiceInput>(() => notProvided('modelCaller')),
    toolRunner: fromCallback<ToolRunRequest, TurnServiceInput>(() => notProvided('toolRunner')),
    innerStopEvaluator: fromCallback<StopEvaluateRequest, TurnServiceInput>(() => notProvided('innerStopEvaluator')),
    compactor: fromCallback<CompactRequest, TurnServiceInput>(() => notProvided('compactor')),
  },
  actions: {
    report: (_, _event: KernelEventBody) => notProvided('report action'),
    saveTurnCheckpoint: (_, _checkpoint: TurnCheckpoint) => notProvided('saveTurnCheckpoint action'),
  },
  guards: {
    needsCompaction: (_, _params: CompactionCheck) => notProvided('needsCompaction guard'),
  },
  delays: {
    taskDeadline: ({ context }) => remainingRuntimeMs(context),
  },
});

/** A service actor failed (it should answer with data instead): report it, then end the task `error`. */
const stopOnServiceError = turnSetup.enqueueActions(({ context, event, enqueue: queue }) => {
  const detail = `internal: ${describeError((event as { error?: unknown }).error)}`;
  queue({ type: 'report', params: { type: 'error', scope: 'internal', message: detail, taskId: context.task.id, taskIndex: context.task.index } });
  queue.assign({ stop: { reason: 'error', code: 'internal_error', detail, at: context.lastAt } });
});

/** The compactor failed (threw, or returned no transcript): report it now; the turn's CHECK_STOP ends the task `error` with the same text. */
const compactorFailed = turnSetup.enqueueActions(({ context, event, enqueue: queue }) => {
  if (event.type !== 'COMPACTION_FAILED') return;
  const message = event.message;
  queue({ type: 'report', params: { type: 'error', scope: 'compactor', message, taskId: context.task.id, taskIndex: context.task.index } });
  queue.assign({ compacting: false, current: { ...context.current, failure: { scope: 'compactor', message } } });
});

/**
 * CHECK_STOP decided: close the turn and report it. When the loop goes on, the same update marks
 * where a resume would continue from (one context copy per turn instead of two).
 */
const closeTurn = turnSetup.enqueueActions(({ context, event, enqueue: queue }) => {
  if (event.type !== 'STOP_DECIDED') return;
  const update = finishTurn(context, event.stop, event.at);
  queue.assign(event.stop === undefined ? { ...update, ...markResumePoint({ ...context, ...update }) } : update);
  const finished = update.turns?.[update.turns.length - 1];
  if (finished === undefined) return;
  queue({ type: 'report', params: { type: 'turn_end', taskId: context.task.id, taskIndex: context.task.index, turn: finished.turn, result: finished } });
});

/**
 * TURN_INIT: count the turn, deliver queued messages, report it, and ask the compactor to run if
 * it has work — spawning it the first time only (it answers COMPACTED or COMPACTION_FAILED).
 */
const startTurn = turnSetup.enqueueActions(({ context, check, enqueue: queue }) => {
  const update = beginTurn(context);
  const turn = update.turn ?? context.turn;
  queue({ type: 'report', params: { type: 'turn_start', taskId: context.task.id, taskIndex: context.task.index, turn } });
  const next = { ...context, ...update };
  if (resumesPendingTurn(next) || !check({ type: 'needsCompaction', params: { messages: next.messages, turn } })) {
    queue.assign(update);
    return;
  }
  queue.assign({ ...update, compacting: true, compactorSpawned: true });
  if (!context.compactorSpawned) queue.spawnChild('compactor', { id: 'compactor', input: serviceInput(context) });
  queue.sendTo('compactor', { type: 'compactor.compact', messages: next.messages, turn });
});

export const turnMachine = turnSetup.createMachine({
  id: 'turn',
  context: ({ input }) => initialTurnContext(input),
  // The task's start is reported here, before TURN_INIT reports its first turn: on a resume the
  // workflow enters TASK_EXECUTE in its initial step, and its own entry actions would run after ours.
  entry: {
    type: 'report',
    params: ({ context }) => ({ type: 'task_start', taskId: context.task.id, taskIndex: context.task.index, description: context.task.description }),
  },
  invoke: [
    { id: 'model', src: 'modelCaller', input: ({ context }) => serviceInput(context), onError: { target: '.DONE', actions: stopOnServiceError } },
    { id: 'tools', src: 'toolRunner', input: ({ context }) => serviceInput(context), onError: { target: '.DONE', actions: stopOnServiceError } },
    { id: 'stop', src: 'innerStopEvaluator', input: ({ context }) => serviceInput(context), onError: { target: '.DONE', actions: stopOnServiceError } },
  ],
  after: {
    taskDeadline: { target: '.DONE', actions: assign(({ context }) => ({ stop: deadlineStop(context), toolCalls: toolCallsWhenCut(context) })) },
  },
  on: {
    STEER: { actions: assign(({ context, event }) => enqueueMessage(context, 'steering', event.message)) },
    FOLLOW_UP: { actions: assign(({ context, event }) => enqueueMessage(context, 'followUp', event.message)) },
    CLEAR_QUEUE: { actions: assign(({ context, event }) => clearMessages(context, event.queue)) },
    CANCEL: { target: '.DONE', actions: assign(({ context, event }) => ({ stop: event.stop, toolCalls: toolCallsWhenCut(context) })) },
    CHECKPOINT_FAILED: {
      target: '.DONE',
      actions: assign(({ event }) => ({ stop: { reason: 'error', code: 'checkpoint_failed', detail: `checkpoint failed: ${event.message}`, at: event.at } })),
    },
  },
  initial: 'TURN_INIT',
  states: {
    TURN_INIT: {
      entry: startTurn,
      always: [
        { guard: ({ context }) => resumesPendingTurn(context), target: 'ACT' },
        { guard: ({ context }) => !context.compacting, target: 'PLAN' },
      ],
      on: {
        COMPACTED: {
          target: 'PLAN',
          actions: assign(({ event }) => ({ messages: event.messages, compacting: false })),
        },
        COMPACTION_FAILED: { target: 'CHECK_STOP', actions: compactorFailed },
      },
    },
    PLAN: {
      entry: sendTo('model', ({ context }) => ({
        type: 'model.call',
        messages: context.messages,
        turn: context.turn,
        wrapUp: context.current.wrapUp,
        callIndex: context.modelCallIndex,
      })),
      on: {
        MODEL_DONE: [
          { guard: ({ context }) => context.current.wrapUp, target: 'DONE', actions: assign(({ context, event }) => recordWrapUp(context, event.result, event.at)) },
          { guard: ({ event }) => hasToolCalls(event.result), target: 'ACT', actions: assign(({ context, event }) => recordModelResult(context, event.result, event.at)) },
          { target: 'CHECK_STOP', actions: assign(({ context, event }) => recordModelResult(context, event.result, event.at)) },
        ],
      },
    },
    ACT: {
      entry: sendTo('tools', ({ context }) => {
        const result = context.current.result;
        return {
          type: 'tools.run',
          turn: context.turn,
          calls: result?.type === 'response' ? result.toolCalls : [],
          slots: Math.max(0, context.task.bounds.maxToolCalls - context.toolCalls),
          spent: {
            tokens: context.frame.budget.tokensBefore + context.usage.inputTokens + context.usage.outputTokens,
            costUsd: context.frame.budget.costBefore + context.costUsd,
          },
        };
      }),
      on: {
        TOOL_STARTED: { actions: assign(({ context }) => ({ current: { ...context.current, toolsStarted: context.current.toolsStarted + 1 } })) },
        TOOLS_DONE: { target: 'OBSERVE', actions: assign(({ context, event }) => observeToolResults(context, event.results, event.at)) },
        TOOLS_FAILED: {
          target: 'OBSERVE',
          actions: assign(({ context, event }) => {
            const observed = observeToolResults(context, event.results, event.at);
            return { ...observed, current: { ...observed.current!, failure: event.failure } };
          }),
        },
      },
    },
    OBSERVE: {
      always: 'CHECK_STOP',
    },
    CHECK_STOP: {
      entry: sendTo('stop', ({ context }) => ({ type: 'stop.evaluate', state: stopState(context) })),
      on: {
        STOP_DECIDED: [
          {
            guard: ({ context, event }) =>
              event.stop !== undefined && context.frame.settings.wrapUpOnBound && WRAP_UP_REASONS.has(event.stop.reason),
            target: 'PLAN',
            actions: [closeTurn, assign(({ context }) => beginWrapUp(context))],
          },
          {
            guard: ({ event }) => event.stop !== undefined,
            target: 'DONE',
            actions: closeTurn,
          },
          {
            target: 'NEXT_TURN',
            actions: closeTurn,
          },
        ],
      },
    },
    NEXT_TURN: {
      entry: {
        type: 'saveTurnCheckpoint',
        params: ({ context }) => ({ runId: context.runId, task: context.task, point: context.resumePoint }),
      },
      always: 'TURN_INIT',
    },
    DONE: {
      type: 'final',
    },
  },
  output: ({ context }) => finalizeTask(context, context.lastAt),
});

function serviceInput(context: TurnContext): TurnServiceInput {
  return { runId: context.runId, taskId: context.task.id, taskIndex: context.task.index };
}


export type TurnMachine = typeof turnMachine;
