/**
 * What the turn machine's services can answer, state by state, for the model-based test. The stop
 * evaluator is not invented: its answer is the kernel's own built-in conditions (src/stop/) over
 * the machine's `stopState`, combined with what a user evaluator may add, so that a walk can only
 * go on where the kernel would let it.
 */
import type { AnyEventObject, AnyMachineSnapshot } from 'xstate';
import type { ModelResult, StopCondition, ToolResult } from 'dualloop';
import { pickStop } from '../../src/contracts/stop.js';
import type { TurnContext } from '../../src/contracts/turn-protocol.js';
import { stopState } from '../../src/loop/turn-reducers.js';
import { INNER_CONDITIONS, outputRepair, type StopCandidate } from '../../src/stop/inner-conditions.js';
import { stop, turnInput, TURN_BOUNDS } from './turn-fixtures.js';

/** The same call twice in a row is a loop. */
export const LOOP_THRESHOLD = 2;

const usage = { inputTokens: 1, outputTokens: 1 };
const call = (id: string, args: Record<string, unknown>) => ({ id, name: 'step', args });
const answer = (toolCalls: ReturnType<typeof call>[], tokens = usage): ModelResult => ({
  type: 'response',
  text: toolCalls.length === 0 ? 'answer' : '',
  toolCalls,
  usage: tokens,
  costUsd: 0,
  finishReason: toolCalls.length === 0 ? 'stop' : 'tool_calls',
});

export const textAnswer = answer([]);
/** The call the greedy model repeats; `otherToolAnswer` differs in its arguments (no loop). */
export const toolAnswer = answer([call('c1', {})]);
const otherToolAnswer = answer([call('c1', { n: 1 })]);
const twoToolAnswer = answer([call('c1', { n: 2 }), call('c2', { n: 3 })]);
/** Spends most of the token budget in one call. */
const heavyToolAnswer = answer([call('c1', { n: 4 })], { inputTokens: 3, outputTokens: 2 });
const modelFailure: ModelResult = { type: 'failure', code: 'server_error', message: 'boom' };
const filtered: ModelResult = { ...textAnswer, finishReason: 'content_filter' } as ModelResult;
/** The model caller's checks of a typed answer (the fixture task has an `output` schema). */
const matched = { ok: true, value: { n: 1 } };
const mismatched = { ok: false, issues: [{ path: 'n', message: 'expected number' }] };
const typedAnswers = [matched, mismatched].map((output) => ({ type: 'MODEL_DONE', result: textAnswer, output, at: 1 }));
/** Guardrail trips (docs/guardrails.md): an input one (no call made), an output one in revise mode, a tool-result one. */
const inputTrip = { type: 'MODEL_DONE', result: textAnswer, at: 1, guardrail: { name: 'in', on: 'input', reason: 'no', mode: 'stop' } };
const outputRevise = { type: 'MODEL_DONE', result: textAnswer, output: matched, at: 1, guardrail: { name: 'out', on: 'output', reason: 'again', mode: 'revise' } };
const toolResultTrip = { guardrail: { name: 'res', on: 'tool_result', reason: 'withheld', mode: 'stop' } } as Partial<ToolResult>;

/** The tool runner's results for the turn's calls: calls beyond the slots left are refused and use none. */
function toolResults(context: TurnContext, shape: Partial<ToolResult> = {}): ToolResult[] {
  const result = context.current.result;
  const calls = result?.type === 'response' ? result.toolCalls : [];
  const slots = Math.max(0, context.task.bounds.maxToolCalls - context.toolCalls);
  return calls.map((toolCall, index) => {
    const runs = index < slots;
    return {
      toolCallId: toolCall.id,
      name: toolCall.name,
      args: toolCall.args,
      result: runs ? 'ok' : 'refused',
      content: runs ? 'ok' : 'tool-call bound reached',
      isError: !runs,
      terminate: false,
      executed: runs,
      usedSlot: runs,
      ...(runs ? shape : {}),
    } as ToolResult;
  });
}

/** The stop evaluator's answer: the built-in conditions, then what a user evaluator adds (priority decides). */
export function stopDecision(context: TurnContext, options: { elapsedMs?: number; user?: StopCandidate } = {}): StopCondition | undefined {
  const check = { state: stopState(context), elapsedMs: options.elapsedMs ?? 0, loopThreshold: LOOP_THRESHOLD };
  const chosen = pickStop([...INNER_CONDITIONS.map((condition) => condition(check)), options.user]);
  return chosen === undefined ? undefined : { ...chosen, at: 1 };
}

/** STOP_DECIDED as the evaluator sends it: the stop, or the repair of a typed answer that did not match. */
function decided(context: TurnContext, options: { elapsedMs?: number; user?: StopCandidate } = {}): AnyEventObject {
  const decision = stopDecision(context, options);
  const repair = decision === undefined ? outputRepair(stopState(context)) : undefined;
  return { type: 'STOP_DECIDED', stop: decision, at: 1, ...(repair === undefined ? {} : { repair }) };
}

const USER_VERDICTS: readonly (StopCandidate | undefined)[] = [
  undefined,
  { reason: 'goal_achieved', detail: 'shouldStopAfterTurn returned true' },
  { reason: 'error', code: 'stop_evaluator_failed', detail: 'inner evaluator threw' },
];

/** Every answer the services may give in this state. */
export function turnEvents(snapshot: AnyMachineSnapshot): AnyEventObject[] {
  // A stopped actor takes no more events; the walk must not either.
  if (snapshot.status === 'done') return [];
  const context = snapshot.context as TurnContext;
  const anywhere = [
    { type: 'CANCEL', stop: stop('context_canceled') },
    { type: 'CHECKPOINT_FAILED', message: 'disk full', at: 1 },
    { type: 'xstate.after.taskDeadline.turn' },
    { type: 'STEER', message: { id: 1, content: 'steer' } },
  ];
  switch (snapshot.value) {
    case 'COMPACT':
      return [...anywhere, { type: 'COMPACTED', messages: context.messages }, { type: 'COMPACTION_FAILED', message: 'x' }];
    case 'PLAN':
      return [
        ...anywhere,
        ...[toolAnswer, otherToolAnswer, twoToolAnswer, heavyToolAnswer, modelFailure, filtered].map((result) => ({ type: 'MODEL_DONE', result, at: 1 })),
        ...typedAnswers,
        ...(context.turn === 1 ? [inputTrip] : []),
        outputRevise,
      ];
    case 'WRAP_UP':
      return [...anywhere, { type: 'MODEL_DONE', result: modelFailure, at: 1 }, ...typedAnswers];
    case 'ACT':
      return [
        ...anywhere,
        { type: 'TOOL_STARTED', count: 1 },
        { type: 'TOOLS_DONE', results: toolResults(context), at: 1 },
        { type: 'TOOLS_DONE', results: toolResults(context, { terminate: true }), at: 1 },
        { type: 'TOOLS_DONE', results: toolResults(context, toolResultTrip), at: 1 },
        { type: 'TOOLS_DONE', results: toolResults(context, { isError: true, executed: false, policy: { decision: 'require_approval', reason: 'ask', approvalId: 'a1' } }), at: 1 },
        { type: 'TOOLS_DONE', results: toolResults(context, { isError: true, executed: false, policy: { decision: 'deny', reason: 'no', halt: true } }), at: 1 },
        { type: 'TOOLS_FAILED', failure: { scope: 'hook', message: 'afterToolCall threw' }, results: toolResults(context), at: 1 },
      ];
    case 'CHECK_STOP':
      return [
        ...anywhere,
        ...[0, TURN_BOUNDS.maxRuntimeMs].flatMap((elapsedMs) =>
          USER_VERDICTS.map((user) => decided(context, { elapsedMs, ...(user === undefined ? {} : { user }) })),
        ),
      ];
    default:
      return anywhere;
  }
}

/**
 * The most stubborn environment: a model that asks for the same tool on every call, tools that
 * succeed, no time passing, no user evaluator. Only the bounds can end such a task.
 */
export function greedyTurnEvent(snapshot: AnyMachineSnapshot): AnyEventObject {
  const context = snapshot.context as TurnContext;
  switch (snapshot.value) {
    case 'COMPACT':
      return { type: 'COMPACTED', messages: context.messages };
    case 'PLAN':
      return { type: 'MODEL_DONE', result: toolAnswer, at: 1 };
    case 'WRAP_UP':
      return { type: 'MODEL_DONE', result: textAnswer, output: matched, at: 1 };
    case 'ACT':
      return { type: 'TOOLS_DONE', results: toolResults(context), at: 1 };
    case 'CHECK_STOP':
      return decided(context);
    default:
      throw new Error(`the turn machine rests in ${JSON.stringify(snapshot.value)}, which no service answers`);
  }
}

/** Coarse enough to keep the graph finite, fine enough that every counter the stop conditions read is kept. */
export function serializeTurn(snapshot: AnyMachineSnapshot): string {
  const context = snapshot.context as TurnContext;
  return JSON.stringify([
    snapshot.value,
    snapshot.status,
    context.stop?.reason,
    context.turn,
    context.toolCalls,
    context.repeat,
    context.usage.inputTokens + context.usage.outputTokens,
    context.current.wrapUp,
    context.current.result?.type === 'response' ? context.current.result.toolCalls.map((toolCall) => JSON.stringify(toolCall.args)) : context.current.result?.type,
    context.current.toolResults?.map((result) => [result.usedSlot, result.terminate, result.policy?.decision, result.guardrail?.on]),
    context.current.guardrail?.on,
    context.current.failure !== undefined,
    context.wrapUp !== undefined,
    context.inbox.queues.steering.length > 0,
    context.compactorSpawned,
    context.current.output?.ok,
    context.output.repairs,
  ]);
}

export { turnInput };
