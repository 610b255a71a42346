/**
 * The inner loop: one task, one model call per turn.
 *
 *   TURN_INIT → [COMPACT →] PLAN → ACT → OBSERVE → CHECK_STOP → (NEXT_TURN → TURN_INIT | [WRAP_UP →] DONE)
 *
 * A pure definition that reads as the spec: every guard and every action is named in `setup()`
 * (docs/diagrams.md is generated from it). The model caller, tool runner and stop evaluator are
 * long-lived service actors invoked once per task and answering with events (creating an actor per
 * turn is the cost this design avoids); the compactor is spawned the first time COMPACT is entered
 * and kept for the rest of the task. COMPACT and WRAP_UP are entered only when there is work for
 * them; COMPACT reports `compaction_start` on entry and `compaction_end` on exit (ADR 0233). Events to the outside world (`report`) and per-turn checkpoints (`saveTurnCheckpoint`) are
 * supplied by the composition root (src/kernel/provide-machines.ts), like the services.
 * The task deadline is a delayed transition on the whole machine.
 */
import { assign, fromCallback, sendTo, setup } from 'xstate';
import { describeError } from '../src/contracts/describe-error.js';
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
  JsonSchema,
} from '../src/contracts/turn-protocol.js';
import { settleOutput, settleWrapUpOutput } from '../src/loop/output-reducers.js';
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
  taskAtCall,
} from '../src/loop/turn-reducers.js';

/** What every turn service is started with. */
export interface TurnServiceInput {
  readonly runId: string;
  readonly taskId: string;
  readonly taskIndex: number;
  /** The task's `output` schema (typed outputs): the model caller asks for it and checks answers against it. */
  readonly output?: JsonSchema;
  /** What input guardrails check (docs/guardrails.md). */
  readonly description: string;
  /** The names of the kernel's guardrails the task runs; absent: all of them. */
  readonly guardrails?: readonly string[];
}

/** What the `needsCompaction` guard decides on: the transcript the next model call would see. */
export interface CompactionCheck {
  readonly messages: readonly Message[];
  readonly turn: number;
}

/** What the compactor is asked, each time COMPACT is entered. */
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

/** The bounds after which `wrapUpOnBound` makes one more call (ADR 0002: a deadline or budget is already spent). */
const WRAP_UP_REASONS = new Set<StopCondition['reason']>(['max_turns', 'max_tool_calls', 'loop_detected']);

/** The effects: every one is supplied by the composition root; these defaults fail loudly. */
const effects = setup({
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

/** The loop's own guards and actions: pure, each a call to a reducer of src/loop/turn-reducers.ts. */
const turnSetup = effects.extend({
  guards: {
    /** The task resumes a turn that parked for approval: it already has its model answer. */
    resumesPendingTurn: ({ context }) => resumesPendingTurn(context),
    /** The answer asks for tools, and no guardrail tripped on the call. */
    hasToolCalls: ({ event }) => event.type === 'MODEL_DONE' && event.guardrail === undefined && hasToolCalls(event.result),
    /** A counting bound stopped the task and `wrapUpOnBound` is on. */
    wrapUpDue: ({ context, event }) =>
      event.type === 'STOP_DECIDED' && event.stop !== undefined && context.frame.settings.wrapUpOnBound && WRAP_UP_REASONS.has(event.stop.reason),
    stopDecided: ({ event }) => event.type === 'STOP_DECIDED' && event.stop !== undefined,
  },
  actions: {
    reportTaskStart: effects.enqueueActions(({ context, enqueue: queue }) => {
      queue({ type: 'report', params: { type: 'task_start', taskId: context.task.id, taskIndex: context.task.index, description: context.task.description } });
    }),
    /** TURN_INIT: count the turn, deliver queued messages, report it. */
    startTurn: effects.enqueueActions(({ context, enqueue: queue }) => {
      const update = beginTurn(context);
      queue({ type: 'report', params: { type: 'turn_start', taskId: context.task.id, taskIndex: context.task.index, turn: update.turn ?? context.turn } });
      queue.assign(update);
    }),
    /** COMPACT: report it, then hand the transcript to the compactor, spawning it the first time (it answers COMPACTED or COMPACTION_FAILED). */
    requestCompaction: effects.enqueueActions(({ context, enqueue: queue }) => {
      queue({ type: 'report', params: { type: 'compaction_start', taskId: context.task.id, taskIndex: context.task.index, turn: context.turn, messagesBefore: context.messages.length } });
      if (!context.compactorSpawned) {
        queue.spawnChild('compactor', { id: 'compactor', input: serviceInput(context) });
        queue.assign({ compactorSpawned: true });
      }
      queue.sendTo('compactor', { type: 'compactor.compact', messages: context.messages, turn: context.turn });
    }),
    /**
     * Leaving COMPACT, however it is left: report how the compaction ended, so that every
     * `compaction_start` has its `compaction_end` (a stop of the task while it ran is `canceled`).
     * An exit action runs before the transition's, so `context.messages` is still the old transcript.
     */
    reportCompactionEnd: effects.enqueueActions(({ context, event, enqueue: queue }) => {
      const messagesBefore = context.messages.length;
      const outcome = event.type === 'COMPACTED' ? 'compacted' : event.type === 'COMPACTION_FAILED' ? 'failed' : 'canceled';
      const messagesAfter = event.type === 'COMPACTED' ? event.messages.length : messagesBefore;
      queue({ type: 'report', params: { type: 'compaction_end', taskId: context.task.id, taskIndex: context.task.index, turn: context.turn, outcome, messagesBefore, messagesAfter } });
    }),
    useCompactedTranscript: assign(({ event }) => (event.type === 'COMPACTED' ? { messages: event.messages } : {})),
    /** The compactor failed (threw, or returned no transcript): report it now; CHECK_STOP ends the task `error` with the same text. */
    recordCompactionFailure: effects.enqueueActions(({ context, event, enqueue: queue }) => {
      if (event.type !== 'COMPACTION_FAILED') return;
      const message = event.message;
      queue({ type: 'report', params: { type: 'error', scope: 'compactor', message, taskId: context.task.id, taskIndex: context.task.index } });
      queue.assign({ current: { ...context.current, failure: { scope: 'compactor', message } } });
    }),
    /** PLAN and WRAP_UP: one model call (without tools for a wrap-up). */
    callModel: sendTo('model', ({ context }) => ({
      type: 'model.call',
      messages: context.messages,
      turn: context.turn,
      wrapUp: context.current.wrapUp,
      callIndex: context.modelCallIndex,
    })),
    recordModelResult: assign(({ context, event }) => (event.type === 'MODEL_DONE' ? recordModelResult(context, event) : {})),
    /** ACT: the turn's tool calls, with the slots left under `maxToolCalls` (the tool runner reads the run's spend). */
    runTools: sendTo('tools', ({ context }) => {
      const result = context.current.result;
      return {
        type: 'tools.run',
        turn: context.turn,
        calls: result?.type === 'response' ? result.toolCalls : [],
        slots: Math.max(0, context.task.bounds.maxToolCalls - context.toolCalls),
        task: taskAtCall(context),
      };
    }),
    countStartedTool: assign(({ context, event }) => (event.type === 'TOOL_STARTED' ? { current: { ...context.current, toolsStarted: context.current.toolsStarted + event.count } } : {})),
    /** OBSERVE: append the results ACT answered with (TOOLS_DONE or TOOLS_FAILED), count slots, track repeats. */
    observeToolResults: assign(({ context, event }) => {
      if (event.type === 'TOOLS_DONE') return observeToolResults(context, event.results, event.at);
      if (event.type !== 'TOOLS_FAILED') return {};
      const observed = observeToolResults(context, event.results, event.at);
      return { ...observed, current: { ...observed.current!, failure: event.failure } };
    }),
    evaluateStop: sendTo('stop', ({ context }) => ({ type: 'stop.evaluate', state: stopState(context) })),
    /**
     * CHECK_STOP decided: close the turn and report it. When the loop goes on, the same update marks
     * where a resume would continue from (one context copy per turn instead of two). A typed
     * answer is settled here: it becomes the output, or goes back to the model as a repair.
     */
    closeTurn: effects.enqueueActions(({ context, event, enqueue: queue }) => {
      if (event.type !== 'STOP_DECIDED') return;
      const settled = settleOutput(context, event.stop, event.repair);
      const update = { ...finishTurn(context, event.stop, event.at), ...settled.update };
      queue.assign(event.stop === undefined ? { ...update, ...markResumePoint({ ...context, ...update }) } : update);
      if (settled.report !== undefined) queue({ type: 'report', params: settled.report });
      const finished = update.turns?.[update.turns.length - 1];
      if (finished === undefined) return;
      queue({ type: 'report', params: { type: 'turn_end', taskId: context.task.id, taskIndex: context.task.index, turn: finished.turn, result: finished } });
    }),
    /** WRAP_UP: ask for the best answer so far, without tools; the call is recorded, not counted as a turn. */
    beginWrapUp: assign(({ context }) => beginWrapUp(context)),
    /** WRAP_UP answered: record the call; a typed answer that matched becomes the output. */
    recordWrapUp: effects.enqueueActions(({ context, event, enqueue: queue }) => {
      if (event.type !== 'MODEL_DONE') return;
      const settled = settleWrapUpOutput(context, event.output, event.guardrail);
      queue.assign({ ...recordWrapUp(context, event), ...settled.update });
      if (settled.report !== undefined) queue({ type: 'report', params: settled.report });
    }),
    stopAtDeadline: assign(({ context }) => ({ stop: deadlineStop(context), toolCalls: toolCallsWhenCut(context) })),
    stopOnCancel: assign(({ context, event }) => (event.type === 'CANCEL' ? { stop: event.stop, toolCalls: toolCallsWhenCut(context) } : {})),
    stopOnCheckpointFailure: assign(({ event }) =>
      event.type === 'CHECKPOINT_FAILED' ? { stop: { reason: 'error', code: 'checkpoint_failed', detail: `checkpoint failed: ${event.message}`, at: event.at } } : {},
    ),
    /** A service actor failed (it should answer with data instead): report it, then end the task `error`. */
    stopOnServiceError: effects.enqueueActions(({ context, event, enqueue: queue }) => {
      const detail = `internal: ${describeError((event as { error?: unknown }).error)}`;
      queue({ type: 'report', params: { type: 'error', scope: 'internal', message: detail, taskId: context.task.id, taskIndex: context.task.index } });
      queue.assign({ stop: { reason: 'error', code: 'internal_error', detail, at: context.lastAt } });
    }),
    queueSteering: assign(({ context, event }) => (event.type === 'STEER' ? enqueueMessage(context, 'steering', event.message) : {})),
    queueFollowUp: assign(({ context, event }) => (event.type === 'FOLLOW_UP' ? enqueueMessage(context, 'followUp', event.message) : {})),
    clearQueue: assign(({ context, event }) => (event.type === 'CLEAR_QUEUE' ? clearMessages(context, event.queue) : {})),
  },
});

const serviceFailed = { target: '.DONE', actions: 'stopOnServiceError' } as const;

export const turnMachine = turnSetup.createMachine({
  id: 'turn',
  context: ({ input }) => initialTurnContext(input),
  // The task's start is reported here, before TURN_INIT reports its first turn: on a resume the
  // workflow enters TASK_EXECUTE in its initial step, and its own entry actions would run after ours.
  entry: 'reportTaskStart',
  invoke: [
    { id: 'model', src: 'modelCaller', input: ({ context }) => serviceInput(context), onError: serviceFailed },
    { id: 'tools', src: 'toolRunner', input: ({ context }) => serviceInput(context), onError: serviceFailed },
    { id: 'stop', src: 'innerStopEvaluator', input: ({ context }) => serviceInput(context), onError: serviceFailed },
  ],
  after: {
    taskDeadline: { target: '.DONE', actions: 'stopAtDeadline' },
  },
  on: {
    STEER: { actions: 'queueSteering' },
    FOLLOW_UP: { actions: 'queueFollowUp' },
    CLEAR_QUEUE: { actions: 'clearQueue' },
    CANCEL: { target: '.DONE', actions: 'stopOnCancel' },
    CHECKPOINT_FAILED: { target: '.DONE', actions: 'stopOnCheckpointFailure' },
  },
  initial: 'TURN_INIT',
  states: {
    TURN_INIT: {
      entry: 'startTurn',
      always: [
        { guard: 'resumesPendingTurn', target: 'ACT' },
        { guard: { type: 'needsCompaction', params: ({ context }) => ({ messages: context.messages, turn: context.turn }) }, target: 'COMPACT' },
        { target: 'PLAN' },
      ],
    },
    COMPACT: {
      entry: 'requestCompaction',
      exit: 'reportCompactionEnd',
      on: {
        COMPACTED: { target: 'PLAN', actions: 'useCompactedTranscript' },
        COMPACTION_FAILED: { target: 'CHECK_STOP', actions: 'recordCompactionFailure' },
      },
    },
    PLAN: {
      entry: 'callModel',
      on: {
        MODEL_DONE: [
          { guard: 'hasToolCalls', target: 'ACT', actions: 'recordModelResult' },
          { target: 'CHECK_STOP', actions: 'recordModelResult' },
        ],
      },
    },
    ACT: {
      entry: 'runTools',
      on: {
        TOOL_STARTED: { actions: 'countStartedTool' },
        TOOLS_DONE: { target: 'OBSERVE' },
        TOOLS_FAILED: { target: 'OBSERVE' },
      },
    },
    OBSERVE: {
      entry: 'observeToolResults',
      always: 'CHECK_STOP',
    },
    CHECK_STOP: {
      entry: 'evaluateStop',
      on: {
        STOP_DECIDED: [
          { guard: 'wrapUpDue', target: 'WRAP_UP', actions: 'closeTurn' },
          { guard: 'stopDecided', target: 'DONE', actions: 'closeTurn' },
          { target: 'NEXT_TURN', actions: 'closeTurn' },
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
    WRAP_UP: {
      entry: ['beginWrapUp', 'callModel'],
      on: {
        MODEL_DONE: { target: 'DONE', actions: 'recordWrapUp' },
      },
    },
    DONE: {
      type: 'final',
    },
  },
  output: ({ context }) => finalizeTask(context, context.lastAt),
});

function serviceInput(context: TurnContext): TurnServiceInput {
  const { task } = context;
  return {
    runId: context.runId,
    taskId: task.id,
    taskIndex: task.index,
    description: task.description,
    ...(task.output === undefined ? {} : { output: task.output }),
    ...(task.guardrails === undefined ? {} : { guardrails: task.guardrails }),
  };
}

export type TurnMachine = typeof turnMachine;
