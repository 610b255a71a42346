/**
 * The built-in stop conditions of the inner loop, one small predicate each. Each returns a
 * candidate or nothing; the evaluator keeps the highest-priority candidate (contracts/stop.ts).
 * Bounds compare with `>=`.
 */
import { outputRepairsOf } from '../contracts/bounds.js';
import { errorCodeOfScope } from '../contracts/error-scopes.js';
import { describeOutputIssues } from '../contracts/typed-output.js';
import { tripStop } from '../contracts/guardrails.js';
import type { StopCandidate } from '../contracts/stop.js';
import type { InnerStopState, OutputRepair } from '../contracts/turn-protocol.js';
import { totalTokens } from '../contracts/usage.js';

export type { StopCandidate };

export interface InnerCheck {
  readonly state: InnerStopState;
  readonly elapsedMs: number;
  readonly loopThreshold: number | undefined;
  /**
   * What the whole run has spent, every running task included (the kernel's ledger); without it,
   * the workflow before this task plus the task's own.
   */
  readonly workflowSpent?: { readonly tokens: number; readonly costUsd: number };
}

export type InnerCondition = (check: InnerCheck) => StopCandidate | undefined;

export const failed: InnerCondition = ({ state }) => {
  if (state.failure !== undefined) return { reason: 'error', code: errorCodeOfScope(state.failure.scope), detail: `${state.failure.scope} failure: ${state.failure.message}` };
  if (state.result?.type === 'response' && state.result.finishReason === 'content_filter') {
    return { reason: 'error', code: 'model_failed', detail: 'model failure: the output was blocked by the provider content filter (content_filter)' };
  }
  return undefined;
};

/** A typed task's answer completes it only when it matched the task's `output` schema, and any answer only when no guardrail tripped on it. */
export const plannerStopped: InnerCondition = ({ state }) =>
  state.result?.type === 'response' && state.result.toolCalls.length === 0 && !state.pendingMessages && state.output?.ok !== false && state.guardrail === undefined
    ? { reason: 'planner_stopped', detail: 'the model answered without tool calls' }
    : undefined;

/**
 * The repair an answer gets when the task goes on (no condition stopped it): a typed answer that
 * did not match, or one an output guardrail in `revise` mode tripped on, goes back to the model as
 * repair `number` of at most `of` (one count for both: `maxOutputRepairs`).
 */
export function outputRepair(state: InnerStopState): OutputRepair | undefined {
  const revise = state.guardrail?.on === 'output' && state.guardrail.mode === 'revise';
  return !revise && (state.output === undefined || state.output.ok) ? undefined : { number: state.outputRepairs + 1, of: outputRepairsOf(state.task.bounds) };
}

/**
 * A guardrail tripped: on the task's input, on its answer (an output guardrail in `revise` mode
 * only once the repairs are used up), or on a tool call or result (a `revise` one only refuses
 * that call or withholds that result).
 */
export const guardrailTripped: InnerCondition = ({ state }) => {
  const trip = state.guardrail ?? state.toolResults?.find((result) => result.guardrail !== undefined && result.guardrail.mode === 'stop')?.guardrail;
  if (trip === undefined) return undefined;
  if (trip.on === 'output' && trip.mode === 'revise' && state.outputRepairs < outputRepairsOf(state.task.bounds)) return undefined;
  return tripStop(trip);
};

/** A typed answer that did not match, with the task's `maxOutputRepairs` repairs already sent. */
export const outputInvalid: InnerCondition = ({ state }) => {
  if (state.output === undefined || state.output.ok) return undefined;
  const limit = outputRepairsOf(state.task.bounds);
  if (state.outputRepairs < limit) return undefined;
  const after = limit === 0 ? 'maxOutputRepairs=0' : `${state.outputRepairs} repair${state.outputRepairs === 1 ? '' : 's'} (maxOutputRepairs=${limit})`;
  return {
    reason: 'invalid_output',
    detail: `the answer did not match the output schema after ${after}: ${describeOutputIssues(state.output.issues)}`,
    bound: { name: 'maxOutputRepairs', limit, value: state.outputRepairs },
  };
};

export const toolTerminated: InnerCondition = ({ state }) => {
  const results = state.toolResults;
  if (results === undefined || results.length === 0 || !results.every((result) => result.terminate)) return undefined;
  return { reason: 'tool_terminated', detail: `every tool result of turn ${state.turn} asked to terminate (${results.map((result) => result.name).join(', ')})` };
};

export const policyStopped: InnerCondition = ({ state }) => {
  const results = state.toolResults ?? [];
  const parked = results.filter((result) => result.policy?.decision === 'require_approval');
  if (parked.length > 0) {
    const ids = parked.map((result) => result.policy?.approvalId ?? result.toolCallId).join(', ');
    return { reason: 'awaiting_approval', detail: `tool call awaiting approval: ${ids}` };
  }
  const halted = results.find((result) => result.policy?.decision === 'deny' && result.policy.halt === true);
  return halted === undefined ? undefined : { reason: 'policy_denied', detail: `tool "${halted.name}" denied by policy: ${halted.policy?.reason}` };
};

export const runtimeExceeded: InnerCondition = ({ state, elapsedMs }) => {
  const limit = state.task.bounds.maxRuntimeMs;
  return elapsedMs >= limit
    ? { reason: 'max_runtime', detail: `task runtime ${elapsedMs} ms reached maxRuntimeMs=${limit}`, bound: { name: 'maxRuntimeMs', limit, value: elapsedMs } }
    : undefined;
};

export const budgetExhausted: InnerCondition = ({ state, workflowSpent }) => {
  const { bounds } = state.task;
  const { budget } = state;
  const tokens = totalTokens(state.usage);
  if (bounds.maxTokens !== undefined && tokens >= bounds.maxTokens) {
    return { reason: 'budget_exhausted', detail: `task used ${tokens} tokens, maxTokens=${bounds.maxTokens}`, bound: { name: 'inner.maxTokens', limit: bounds.maxTokens, value: tokens } };
  }
  if (bounds.maxCostUsd !== undefined && state.costUsd >= bounds.maxCostUsd) {
    return { reason: 'budget_exhausted', detail: `task cost $${state.costUsd.toFixed(6)}, maxCostUsd=${bounds.maxCostUsd}`, bound: { name: 'inner.maxCostUsd', limit: bounds.maxCostUsd, value: state.costUsd } };
  }
  const workflowTokens = workflowSpent?.tokens ?? budget.tokensBefore + tokens;
  if (budget.maxTokens !== undefined && workflowTokens >= budget.maxTokens) {
    return { reason: 'budget_exhausted', detail: `workflow used ${workflowTokens} tokens, maxTokens=${budget.maxTokens}`, bound: { name: 'outer.maxTokens', limit: budget.maxTokens, value: workflowTokens } };
  }
  const workflowCost = workflowSpent?.costUsd ?? budget.costBefore + state.costUsd;
  if (budget.maxCostUsd !== undefined && workflowCost >= budget.maxCostUsd) {
    return { reason: 'budget_exhausted', detail: `workflow cost $${workflowCost.toFixed(6)}, maxCostUsd=${budget.maxCostUsd}`, bound: { name: 'outer.maxCostUsd', limit: budget.maxCostUsd, value: workflowCost } };
  }
  return undefined;
};

export const loopDetected: InnerCondition = ({ state, loopThreshold }) => {
  if (loopThreshold === undefined || state.repeat.count < loopThreshold) return undefined;
  const name = state.repeat.key.slice(0, state.repeat.key.indexOf(':'));
  return {
    reason: 'loop_detected',
    detail: `the same call to "${name}" with the same arguments came ${state.repeat.count} times in a row`,
    bound: { name: 'loopDetection.threshold', limit: loopThreshold, value: state.repeat.count },
  };
};

export const turnsExhausted: InnerCondition = ({ state }) => {
  const limit = state.task.bounds.maxTurns;
  return state.turn >= limit
    ? { reason: 'max_turns', detail: `turn ${state.turn} reached maxTurns=${limit}`, bound: { name: 'maxTurns', limit, value: state.turn } }
    : undefined;
};

export const toolCallsExhausted: InnerCondition = ({ state }) => {
  const limit = state.task.bounds.maxToolCalls;
  return state.toolCalls >= limit
    ? { reason: 'max_tool_calls', detail: `${state.toolCalls} tool calls reached maxToolCalls=${limit}`, bound: { name: 'maxToolCalls', limit, value: state.toolCalls } }
    : undefined;
};

export const INNER_CONDITIONS: readonly InnerCondition[] = [
  failed,
  guardrailTripped,
  plannerStopped,
  toolTerminated,
  policyStopped,
  runtimeExceeded,
  budgetExhausted,
  loopDetected,
  // Before invalid_output, its equal in rank: the turn bound is named when both hold at one check.
  turnsExhausted,
  outputInvalid,
  toolCallsExhausted,
];
