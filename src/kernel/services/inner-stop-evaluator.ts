import { fromCallback } from 'xstate';
import type { TurnServiceInput } from '../../../machines/turn.machine.js';
import type { InnerStopView } from '../../contracts/hooks.js';
import type { TurnResult } from '../../contracts/results.js';
import { pickStop, stopPriority, type StopCondition, type StopReason } from '../../contracts/stop.js';
import type { InnerStopState, StopEvaluateRequest, TurnEvent } from '../../contracts/turn-protocol.js';
import { INNER_CONDITIONS, outputRepair, type StopCandidate } from '../../stop/inner-conditions.js';
import { firstVerdict } from '../../stop/user-verdicts.js';
import { TASK_STOPPED } from '../abort-reasons.js';
import type { KernelDeps } from '../kernel-deps.js';
import { runtimeOf, type RunRegistry } from '../run-runtime.js';

type Reply = Extract<TurnEvent, { type: 'STOP_DECIDED' }>;

/**
 * The inner stop evaluator: one long-lived actor per task. At every CHECK_STOP it runs the
 * built-in conditions (synchronously, answering at once), then — unless a cancel or an error
 * already decided — `shouldStopAfterTurn` and the user's inner evaluators, and answers
 * `STOP_DECIDED` with the highest-priority stop, or none to go on — with a repair when the task
 * goes on after a typed answer that did not match its schema.
 */
export function createInnerStopEvaluator(deps: KernelDeps, registry: RunRegistry) {
  const hasUserChecks = deps.stop.inner.length > 0 || deps.stop.shouldStopAfterTurn !== undefined;
  return fromCallback<StopEvaluateRequest, TurnServiceInput>(({ input, receive, sendBack }) => {
    const run = runtimeOf(registry, input.runId);
    // Only the user's checks take a signal: without them no controller is made (issue 16: per-task setup).
    const controller = hasUserChecks ? new AbortController() : undefined;
    receive(({ state }) => {
      const elapsedMs = state.elapsedBeforeMs + Math.max(0, deps.clock.now() - state.startedAt);
      const check = { state, elapsedMs, loopThreshold: deps.stop.loopThreshold, workflowSpent: run.spend.total() };
      const builtIn = pickStop(INNER_CONDITIONS.map((condition) => condition(check)));
      if (!hasUserChecks || (builtIn !== undefined && preemptsUserChecks(builtIn.reason))) {
        sendBack(decided(builtIn, state, deps.clock.now()));
        return;
      }
      const signal = controller!.signal;
      void userCandidate(deps, state, elapsedMs, signal).then((user) => {
        if (signal.aborted) return;
        if (user?.reason === 'error') run.emit({ type: 'error', scope: 'stop_evaluator', code: user.code, message: user.detail, taskId: input.taskId, taskIndex: input.taskIndex });
        sendBack(decided(pickStop([builtIn, user]), state, deps.clock.now()));
      });
    });
    return () => controller?.abort(TASK_STOPPED);
  });
}

/** A cancel or an error outranks anything a user check could answer: they are not asked. */
function preemptsUserChecks(reason: StopReason): boolean {
  return stopPriority(reason) <= stopPriority('error');
}

function decided(candidate: StopCandidate | undefined, state: InnerStopState, at: number): Reply {
  const stop: StopCondition | undefined = candidate === undefined ? undefined : { ...candidate, at };
  // The task goes on after a typed answer that did not match: it goes back to the model
  // (the outputInvalid condition stops the task instead once the repairs are used up).
  const repair = stop === undefined ? outputRepair(state) : undefined;
  return repair === undefined ? { type: 'STOP_DECIDED', stop, at } : { type: 'STOP_DECIDED', stop, at, repair };
}

async function userCandidate(deps: KernelDeps, state: InnerStopState, elapsedMs: number, signal: AbortSignal): Promise<StopCandidate | undefined> {
  if (deps.stop.shouldStopAfterTurn !== undefined) {
    const check = deps.stop.shouldStopAfterTurn;
    const turn = turnView(state);
    const goal = await firstVerdict(
      [async () => ((await check(turn, { id: state.task.id, index: state.task.index })) ? { reason: 'goal_achieved', detail: 'shouldStopAfterTurn returned true' } : undefined)],
      'shouldStopAfterTurn',
    );
    if (goal !== undefined) return goal;
  }
  if (deps.stop.inner.length === 0) return undefined;
  const view: InnerStopView = {
    runId: state.runId,
    taskId: state.task.id,
    taskIndex: state.task.index,
    turn: state.turn,
    toolCalls: state.toolCalls,
    usage: state.usage,
    costUsd: state.costUsd,
    elapsedMs,
    lastText: state.result?.type === 'response' ? state.result.text : '',
    messages: state.messages,
  };
  return firstVerdict(deps.stop.inner.map((evaluate) => () => evaluate(view, signal)), 'inner');
}

/** The turn as `shouldStopAfterTurn` sees it: its result before it is closed. */
function turnView(state: InnerStopState): TurnResult {
  const result = state.result;
  return {
    turn: state.turn,
    assistantText: result?.type === 'response' ? result.text : '',
    toolCalls: (state.toolResults ?? []).map((tool) => ({ id: tool.toolCallId, name: tool.name, args: tool.args, result: tool.result, isError: tool.isError })),
    usage: result?.usage ?? { inputTokens: 0, outputTokens: 0 },
    costUsd: result?.type === 'response' ? result.costUsd : 0,
    runtimeMs: 0,
  };
}
