/**
 * Pure functions the turn machine uses in its `assign` actions and guards. No effects, no clock:
 * every time value comes from an event. Kept apart so that machines/turn.machine.ts reads as the loop.
 */
import type { Message, ToolMessage } from '../contracts/messages.js';
import type { ModelResult } from '../contracts/model.js';
import { clearQueue, enqueue, type MessageQueues, type QueuedMessage, type QueueName } from '../contracts/queues.js';
import type { TaskResult, TurnResult, TurnToolCall, WrapUpResult } from '../contracts/results.js';
import type { StopCondition } from '../contracts/stop.js';
import type { ToolResult } from '../contracts/tool.js';
import { guardrailStop, withheld } from './guardrail-reducers.js';
import type { CurrentTurn, InnerStopState, TaskAtCall, TurnContext, TurnEvent, TurnInput, TurnOutput, TurnProgress } from '../contracts/turn-protocol.js';
import { addUsage } from '../contracts/usage.js';
import { toolCallKey } from './tool-call-key.js';

export function initialTurnContext(input: TurnInput): TurnContext {
  const { progress } = input;
  // Every field is present from the start, so the context keeps one shape across assigns.
  return {
    runId: input.runId,
    task: input.task,
    frame: { settings: input.settings, budget: input.budget, startedAt: input.startedAt, elapsedBeforeMs: progress.elapsedMs },
    messages: progress.messages,
    turns: progress.turns,
    turn: progress.pending?.turn ?? progress.turns.length,
    toolCalls: progress.toolCalls,
    usage: progress.usage,
    costUsd: progress.costUsd,
    repeat: progress.repeat,
    inbox: { queues: input.queues, delivered: [], followUpDue: progress.followUpDue },
    modelCallIndex: input.modelCallIndex,
    lastAt: input.startedAt,
    current:
      progress.pending === undefined
        ? newTurn(progress.turns.length, input.startedAt, false)
        : { ...newTurn(progress.pending.turn, input.startedAt, false), result: progress.pending.response },
    resumePoint: { progress, queues: input.queues, delivered: [], modelCallIndex: input.modelCallIndex },
    stop: undefined,
    wrapUp: undefined,
    compactorSpawned: false,
    output: { repairs: progress.outputRepairs ?? 0 },
  };
}

function newTurn(turn: number, startedAt: number, wrapUp: boolean): CurrentTurn {
  return { turn, startedAt, wrapUp, result: undefined, toolResults: undefined, failure: undefined, resumeAt: undefined, toolsStarted: 0, output: undefined };
}

/**
 * After TURN_INIT's entry: the turn already has its model answer, because the task resumed a turn
 * that parked for approval. It goes straight to ACT with that answer's tool calls.
 */
export function resumesPendingTurn(context: TurnContext): boolean {
  return context.current.result !== undefined;
}

/** TURN_INIT: count the turn and deliver queued messages into the transcript. */
export function beginTurn(context: TurnContext): Partial<TurnContext> {
  // A resumed pending turn was counted (and its messages delivered) before it parked.
  if (context.turns.length < context.turn) return {};
  const turn = context.turn + 1;
  const { inbox, frame } = context;
  const steering = take(inbox.queues.steering, frame.settings.steeringMode);
  const followUps = steering.length === 0 && inbox.followUpDue ? take(inbox.queues.followUp, frame.settings.followUpMode) : [];
  const current = newTurn(turn, context.lastAt, false);
  if (steering.length === 0 && followUps.length === 0) return { turn, current };
  const messages: Message[] = [
    ...context.messages,
    ...steering.map((message): Message => ({ role: 'user', content: message.content, source: 'steering' })),
    ...followUps.map((message): Message => ({ role: 'user', content: message.content, source: 'follow_up' })),
  ];
  const queues: MessageQueues = {
    steering: inbox.queues.steering.slice(steering.length),
    followUp: inbox.queues.followUp.slice(followUps.length),
  };
  const delivered = [...inbox.delivered, ...steering.map((message) => message.id), ...followUps.map((message) => message.id)];
  return { turn, current, messages, inbox: { ...inbox, queues, delivered } };
}

function take(queue: readonly QueuedMessage[], mode: 'one-at-a-time' | 'all'): readonly QueuedMessage[] {
  if (queue.length === 0) return queue;
  return mode === 'all' ? queue : queue.slice(0, 1);
}

/**
 * The part a failed model call blames: a throwing context hook (`hook_failed`), a tool source that
 * did not open for the call (`tool_failed`, ADR/0143), else the model.
 */
export function failureScope(code: string): 'hook' | 'tool' | 'model' {
  return code === 'hook_failed' ? 'hook' : code === 'tool_failed' ? 'tool' : 'model';
}

/** PLAN answered: count the call, add its usage, append the assistant message; keep a typed answer's check. */
/** A model call's answer, as MODEL_DONE brings it. */
type ModelAnswer = Omit<Extract<TurnEvent, { type: 'MODEL_DONE' }>, 'type'>;

export function recordModelResult(context: TurnContext, answer: ModelAnswer): Partial<TurnContext> {
  const { result, at, output, guardrail, guardrailSpend } = answer;
  // What the call's guardrails spent (a judge's model call) is the task's, whatever they found.
  const spent = guardrailSpend === undefined ? {} : { usage: addUsage(context.usage, guardrailSpend.usage), costUsd: context.costUsd + guardrailSpend.costUsd };
  // An input guardrail tripped before the call: there is no answer to record.
  if (guardrail?.on === 'input') return { ...spent, lastAt: at, current: { ...context.current, guardrail } };
  const before = { usage: spent.usage ?? context.usage, costUsd: spent.costUsd ?? context.costUsd };
  const usage = result.usage === undefined ? before.usage : addUsage(before.usage, result.usage);
  const base = {
    modelCallIndex: context.modelCallIndex + 1,
    usage,
    costUsd: before.costUsd,
    lastAt: at,
    current: { ...context.current, result, output, ...(guardrail === undefined ? {} : { guardrail }) },
  };
  if (result.type === 'failure') {
    return { ...base, current: { ...base.current, failure: { scope: failureScope(result.code), message: `${result.code}: ${result.message}` } } };
  }
  const assistant: Message =
    result.toolCalls.length > 0
      ? { role: 'assistant', content: result.text, toolCalls: result.toolCalls }
      : { role: 'assistant', content: result.text };
  const update = { ...base, costUsd: before.costUsd + result.costUsd, messages: [...context.messages, assistant] };
  if (result.toolCalls.length === 0 || context.current.wrapUp) return update;
  const after = { ...context, ...update };
  const resumeAt = {
    progress: { ...progressOf(after), pending: { turn: context.current.turn, response: result } },
    queues: context.inbox.queues,
    delivered: context.inbox.delivered,
    modelCallIndex: update.modelCallIndex,
  };
  return { ...update, current: { ...update.current, resumeAt } };
}

export function hasToolCalls(result: ModelResult | undefined): boolean {
  return result !== undefined && result.type === 'response' && result.toolCalls.length > 0;
}

/**
 * OBSERVE: append tool results to the transcript, count bound slots, track repeated calls. What a
 * delegated run (`agentTool`) spent — its tool calls, tokens and cost — counts as this task's.
 */
export function observeToolResults(context: TurnContext, results: readonly ToolResult[], at: number): Partial<TurnContext> {
  let { repeat, usage, costUsd } = context;
  let slots = 0;
  const toolMessages: ToolMessage[] = [];
  for (const result of results) {
    if (result.usedSlot) {
      slots += 1;
      const key = toolCallKey(result.name, result.args);
      repeat = key === repeat.key ? { key, count: repeat.count + 1 } : { key, count: 1 };
    }
    if (result.delegated !== undefined) {
      slots += result.delegated.toolCalls;
      usage = addUsage(usage, result.delegated.usage);
      costUsd += result.delegated.costUsd;
    }
    // What the call's guardrails spent (a judge's model call) is the task's too.
    if (result.charged !== undefined) {
      usage = addUsage(usage, result.charged.usage);
      costUsd += result.charged.costUsd;
    }
    toolMessages.push({ role: 'tool', toolCallId: result.toolCallId, name: result.name, content: result.content, isError: result.isError });
  }
  return {
    messages: [...context.messages, ...toolMessages],
    toolCalls: context.toolCalls + slots,
    repeat,
    ...(usage === context.usage ? {} : { usage, costUsd }),
    lastAt: at,
    current: { ...context.current, toolResults: results },
  };
}

export function stopState(context: TurnContext): InnerStopState {
  return {
    runId: context.runId,
    task: context.task,
    budget: context.frame.budget,
    turn: context.turn,
    toolCalls: context.toolCalls,
    usage: context.usage,
    costUsd: context.costUsd,
    repeat: context.repeat,
    elapsedBeforeMs: context.frame.elapsedBeforeMs,
    startedAt: context.frame.startedAt,
    result: context.current.result,
    toolResults: context.current.toolResults,
    failure: context.current.failure,
    pendingMessages: context.inbox.queues.steering.length > 0 || context.inbox.queues.followUp.length > 0,
    messages: context.messages,
    ...(context.current.output === undefined ? {} : { output: context.current.output }),
    outputRepairs: context.output.repairs,
    ...(context.current.guardrail === undefined ? {} : { guardrail: context.current.guardrail }),
  };
}

function turnResult(context: TurnContext, at: number, stop: StopCondition | undefined): TurnResult {
  const { current } = context;
  const result = current.result;
  const toolCalls: TurnToolCall[] = (current.toolResults ?? []).map((tool) => ({
    id: tool.toolCallId,
    name: tool.name,
    args: tool.args,
    ...(tool.proposedArgs === undefined ? {} : { proposedArgs: tool.proposedArgs }),
    result: tool.result,
    isError: tool.isError,
  }));
  return {
    turn: current.turn,
    assistantText: result?.type === 'response' ? result.text : '',
    toolCalls,
    ...(stop === undefined ? {} : { stop }),
    usage: result?.usage ?? { inputTokens: 0, outputTokens: 0 },
    costUsd: result?.type === 'response' ? result.costUsd : 0,
    runtimeMs: Math.max(0, at - current.startedAt),
  };
}

/** CHECK_STOP decided: close the turn. */
export function finishTurn(context: TurnContext, stop: StopCondition | undefined, at: number): Partial<TurnContext> {
  const finished = turnResult(context, at, stop);
  const followUpDue = !hasToolCalls(context.current.result);
  return {
    turns: [...context.turns, finished],
    inbox: followUpDue === context.inbox.followUpDue ? context.inbox : { ...context.inbox, followUpDue },
    lastAt: at,
    stop,
  };
}

/** NEXT_TURN: the state a resume continues from. */
export function progressOf(context: TurnContext): TurnProgress {
  return {
    messages: context.messages,
    turns: context.turns,
    toolCalls: context.toolCalls,
    usage: context.usage,
    costUsd: context.costUsd,
    elapsedMs: context.frame.elapsedBeforeMs + Math.max(0, context.lastAt - context.frame.startedAt),
    repeat: context.repeat,
    followUpDue: context.inbox.followUpDue,
    // Written only once there is a repair: checkpoints of other tasks keep their shape.
    ...(context.output.repairs === 0 ? {} : { outputRepairs: context.output.repairs }),
  };
}

export const WRAP_UP_PROMPT =
  'You have reached a limit and cannot call tools any more. Give your best final answer now, based on what you have so far.';

/** A bound stopped the task and `wrapUpOnBound` is on: one more call, without tools. */
export function beginWrapUp(context: TurnContext): Partial<TurnContext> {
  return {
    messages: [...context.messages, { role: 'user', content: WRAP_UP_PROMPT, source: 'wrap_up' }],
    current: newTurn(context.turn, context.lastAt, true),
  };
}

export function recordWrapUp(context: TurnContext, answer: ModelAnswer): Partial<TurnContext> {
  const { result, at, guardrail } = answer;
  // A failed wrap-up call does not change how the task stopped; it only leaves no answer.
  const recorded = recordModelResult(context, answer);
  const withResult = { ...context, ...recorded };
  const wrapUp = { ...turnResult(withResult, at, undefined), finishReason: result.type === 'response' ? result.finishReason : 'error' } as const;
  // An output guardrail tripped on the wrap-up answer: the task stops on it, and the answer is withheld.
  return guardrail === undefined ? { ...recorded, wrapUp } : { ...recorded, wrapUp, stop: guardrailStop(guardrail, at) };
}


/** DONE: close a turn cut mid-way, then build the task result. */
export function finalizeTask(context: TurnContext, fallbackAt: number): TurnOutput {
  const stop: StopCondition = context.stop ?? { reason: 'error', code: 'internal_error', detail: 'internal: task ended without a stop condition', at: fallbackAt };
  const unfinished = context.turns.length < context.turn && !context.current.wrapUp;
  const turns = unfinished ? [...context.turns, turnResult(context, stop.at, stop)] : context.turns;
  const last = turns[turns.length - 1];
  // A stop during the wrap-up call (cancel, deadline) leaves it unanswered: recorded as `canceled`.
  const wrapUp: WrapUpResult | undefined =
    context.wrapUp ?? (context.current.wrapUp ? { ...turnResult(context, stop.at, undefined), finishReason: 'canceled' } : undefined);
  const wrapUpText = wrapUp?.assistantText;
  const result: TaskResult = {
    taskId: context.task.id,
    index: context.task.index,
    description: context.task.description,
    stop,
    turns,
    turnCount: context.turn,
    toolCalls: context.toolCalls,
    // A typed task's output is the answer that matched its schema (none: undefined), else the text.
    output: withheld(stop)
      ? context.task.output === undefined ? '' : undefined
      : context.task.output !== undefined ? context.output.matched?.value : wrapUpText !== undefined && wrapUpText !== '' ? wrapUpText : (last?.assistantText ?? ''),
    usage: context.usage,
    costUsd: context.costUsd,
    runtimeMs: context.frame.elapsedBeforeMs + Math.max(0, stop.at - context.frame.startedAt),
    ...(wrapUp === undefined ? {} : { wrapUp }),
  };
  // A task parked for approval resumes at ACT with the same calls; any other stop re-runs its
  // unfinished turn from the last completed one.
  const parked = stop.reason === 'awaiting_approval' ? context.current.resumeAt : undefined;
  return { result, delivered: context.inbox.delivered, modelCallIndex: context.modelCallIndex, resumePoint: parked ?? context.resumePoint };
}

/**
 * The task's tool-call count when a deadline or cancel cuts the turn: the calls of a batch that
 * started count even though the batch never reported (a tool that ran is a tool call).
 */
export function toolCallsWhenCut(context: TurnContext): number {
  return context.current.toolResults === undefined ? context.toolCalls + context.current.toolsStarted : context.toolCalls;
}

export function deadlineStop(context: TurnContext): StopCondition {
  const limit = context.task.bounds.maxRuntimeMs;
  return {
    reason: 'max_runtime',
    detail: `task runtime reached maxRuntimeMs=${limit}`,
    bound: { name: 'maxRuntimeMs', limit, value: limit },
    at: context.frame.startedAt + Math.max(0, limit - context.frame.elapsedBeforeMs),
  };
}

/** ACT: what a delegating tool call needs of its task (ToolRunRequest.task). */
export function taskAtCall(context: TurnContext): TaskAtCall {
  return {
    spec: context.task,
    tokens: context.usage.inputTokens + context.usage.outputTokens,
    costUsd: context.costUsd,
    toolCalls: context.toolCalls,
    deadlineAt: context.frame.startedAt + remainingRuntimeMs(context),
    resumeAt: context.current.resumeAt,
  };
}

export function remainingRuntimeMs(context: TurnContext): number {
  return Math.max(0, context.task.bounds.maxRuntimeMs - context.frame.elapsedBeforeMs);
}

/** NEXT_TURN: remember where a resume would continue from. */
export function markResumePoint(context: TurnContext): Partial<TurnContext> {
  return {
    resumePoint: { progress: progressOf(context), queues: context.inbox.queues, delivered: context.inbox.delivered, modelCallIndex: context.modelCallIndex },
  };
}

export function enqueueMessage(context: TurnContext, queue: 'steering' | 'followUp', message: QueuedMessage): Partial<TurnContext> {
  return { inbox: { ...context.inbox, queues: enqueue(context.inbox.queues, queue, message) } };
}

export function clearMessages(context: TurnContext, queue: QueueName): Partial<TurnContext> {
  return { inbox: { ...context.inbox, queues: clearQueue(context.inbox.queues, queue) } };
}
