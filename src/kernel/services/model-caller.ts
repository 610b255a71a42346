import { fromCallback } from 'xstate';
import type { TurnServiceInput } from '../../../machines/turn.machine.js';
import type { Message } from '../../contracts/messages.js';
import type { ModelRequest, ModelResult } from '../../contracts/model.js';
import type { ModelCallRequest, TurnEvent } from '../../contracts/turn-protocol.js';
import { describeError } from '../../errors.js';
import { TASK_STOPPED } from '../abort-reasons.js';
import type { KernelDeps } from '../kernel-deps.js';
import { runtimeOf, type RunRegistry, type RunRuntime } from '../run-runtime.js';
import { checkedModelResult } from '../../providers/checked-model-result.js';
import { callWithinRateLimit, rateLimitOf } from '../../providers/rate-limited-call.js';
import { failureScope } from '../../loop/turn-reducers.js';
import { checkAnswer } from '../../output/output-validator.js';
import { responseFormatFor, withOutputInstruction } from '../../output/output-prompt.js';
import { guardrailsOfTask } from '../../guardrails/guardrail-events.js';
import { guardInput, guardOutput, NOT_CALLED, sumSpend, type ModelGuardScope } from '../../guardrails/model-guardrails.js';

type Reply = Extract<TurnEvent, { type: 'MODEL_DONE' }>;

/**
 * The model caller: one long-lived actor per task. Each `model.call` request runs one streamed
 * model call and answers `MODEL_DONE` with the result — a failure is a result too. When the task
 * stops (deadline, cancel) the actor is stopped and the in-flight call's signal aborts.
 * For a typed task (`output` schema) every call asks for JSON (system line, `responseFormat`) and
 * an answer without tool calls comes back checked against the schema (`MODEL_DONE.output`).
 */
export function createModelCaller(deps: KernelDeps, registry: RunRegistry) {
  return fromCallback<ModelCallRequest, TurnServiceInput>(({ input, receive, sendBack }) => {
    const run = runtimeOf(registry, input.runId);
    // One controller for the task's calls (one call at a time): it aborts only when the task stops.
    let controller: AbortController | undefined;
    let inFlight: ModelCallRequest | undefined;
    const guardrails = guardrailsOfTask(deps.guardrails.list, input.guardrails);
    receive((request) => {
      controller ??= new AbortController();
      const { signal } = controller;
      const guard: ModelGuardScope = {
        guardrails,
        runId: run.runId,
        taskId: input.taskId,
        taskIndex: input.taskIndex,
        turn: request.turn,
        signal,
        clock: deps.clock,
        emit: (body) => run.emit(body),
        charge: (usage, costUsd) => run.spend.charge(usage, costUsd),
      };
      const answer = async (): Promise<Reply | undefined> => {
        const checked = await guardInput(input.description, request.turn === 1 && !request.wrapUp, guard);
        const inputSpend = checked.spent === undefined ? {} : { guardrailSpend: checked.spent };
        if (checked.trip !== undefined) return { type: 'MODEL_DONE', result: NOT_CALLED, at: deps.clock.now(), guardrail: checked.trip, ...inputSpend };
        if (signal.aborted) return undefined;
        inFlight = request;
        const result = await callModel(deps, run, input, request, signal);
        if (signal.aborted) return undefined;
        inFlight = undefined;
        // What the task counts, the run's ledger counts: the workflow budget holds across tasks running at once.
        run.spend.charge(result.usage, result.type === 'response' ? result.costUsd : 0);
        const output = checkAnswer(result, input.output, deps.tools.limits.toolArgumentsDepth);
        const answered = await guardOutput(result, output, guard);
        const spent = sumSpend(checked.spent, answered.spent);
        return {
          type: 'MODEL_DONE',
          result,
          at: deps.clock.now(),
          ...(output === undefined ? {} : { output }),
          ...(answered.trip === undefined ? {} : { guardrail: answered.trip }),
          ...(spent === undefined ? {} : { guardrailSpend: spent }),
        };
      };
      void answer().then((reply) => {
        if (reply !== undefined && !signal.aborted) sendBack(reply);
      });
    });
    return () => {
      controller?.abort(TASK_STOPPED);
      // The task stopped mid-call: close the message so that every message_start has its end.
      if (inFlight !== undefined) {
        run.emit({
          type: 'message_end',
          taskId: input.taskId,
          taskIndex: input.taskIndex,
          turn: inFlight.turn,
          text: '',
          toolCalls: [],
          usage: { inputTokens: 0, outputTokens: 0 },
          costUsd: 0,
          finishReason: 'canceled',
        });
      }
    };
  });
}

async function callModel(
  deps: KernelDeps,
  run: RunRuntime,
  service: TurnServiceInput,
  request: ModelCallRequest,
  signal: AbortSignal,
): Promise<ModelResult> {
  const scope = { taskId: service.taskId, taskIndex: service.taskIndex, turn: request.turn };
  run.emit({ type: 'message_start', ...scope, wrapUp: request.wrapUp });
  // Deltas past limits.modelTextChars reach no listener or store: the kept text is cut there too.
  let streamed = 0;
  const maxChars = deps.tools.limits.modelTextChars;
  let result: ModelResult;
  // A delta is part of this call only while the call runs: one sent later (a timer of a custom Model) would follow message_end.
  let answering = true;
  try {
    const visible = await visibleMessages(deps, run, service, request, signal);
    const messages = service.output === undefined ? visible : withOutputInstruction(visible, service.output);
    const tools = request.wrapUp ? [] : (run.tools.ready ?? (await openTools(run))).descriptors;
    const model = deps.models.model;
    const call: ModelRequest = {
      messages,
      tools,
      ...(service.output === undefined ? {} : { responseFormat: responseFormatFor(service.taskId, service.output) }),
      signal,
      callIndex: run.callIndexes.take(request.callIndex),
      taskId: service.taskId,
      turn: request.turn,
      onTextDelta: (delta) => {
        if (!answering || typeof delta !== 'string' || delta === '' || signal.aborted || streamed >= maxChars) return;
        const kept = streamed + delta.length <= maxChars ? delta : delta.slice(0, maxChars - streamed);
        streamed += kept.length;
        run.emit({ type: 'message_update', ...scope, delta: kept });
      },
    };
    const limit = rateLimitOf(model);
    result = limit === undefined
      ? await model.call(call)
      : await callWithinRateLimit(model, call, {
          window: run.rateWindow(model, limit),
          onWait: (waitMs, reason) => run.emit({ type: 'rate_limit_wait', ...scope, model: `${model.provider}/${model.modelId}`, waitMs, reason }),
        });
  } catch (error) {
    result = { type: 'failure', code: error instanceof HookError ? 'hook_failed' : error instanceof ToolSourceError ? 'tool_failed' : 'model_threw', message: describeError(error) };
  }
  answering = false;
  result = checkedModelResult(result, deps.tools.limits);
  if (signal.aborted) return result;
  if (result.type === 'failure') {
    run.emit({ type: 'error', scope: failureScope(result.code), message: `${result.code}: ${result.message}`, taskId: service.taskId, taskIndex: service.taskIndex });
    run.emit({ type: 'message_end', ...scope, text: '', toolCalls: [], usage: result.usage ?? { inputTokens: 0, outputTokens: 0 }, costUsd: 0, finishReason: 'error' });
    return result;
  }
  for (const warning of result.warnings ?? []) run.emit({ type: 'warning', message: warning, taskId: service.taskId, taskIndex: service.taskIndex });
  run.emit({
    type: 'message_end',
    ...scope,
    text: result.text,
    toolCalls: result.toolCalls.map((call) => ({ id: call.id, name: call.name, args: call.args })),
    usage: result.usage,
    costUsd: result.costUsd,
    finishReason: result.finishReason,
    ...(result.responseModelId === undefined ? {} : { responseModelId: result.responseModelId }),
  });
  return result;
}

class HookError extends Error {}
class ToolSourceError extends Error {}

/** The run's first need of its tool sources' tools (ADR/0143): a source that does not open fails the call, scope `tool`. */
async function openTools(run: RunRuntime) {
  try {
    return await run.tools.open();
  } catch (error) {
    throw new ToolSourceError(describeError(error));
  }
}

/** What this call sees: `transformContext` (state untouched) plus ephemeral messages (never stored). */
async function visibleMessages(
  deps: KernelDeps,
  run: RunRuntime,
  service: TurnServiceInput,
  request: ModelCallRequest,
  signal: AbortSignal,
): Promise<readonly Message[]> {
  let messages = request.messages;
  if (deps.context.transformContext !== undefined) {
    try {
      messages = await deps.context.transformContext(messages, signal);
    } catch (error) {
      throw new HookError(`transformContext threw: ${describeError(error)}`);
    }
  }
  if (deps.context.ephemeralMessages === undefined) return messages;
  try {
    const extra = await deps.context.ephemeralMessages({ runId: run.runId, taskId: service.taskId, turn: request.turn });
    return extra.length === 0 ? messages : [...messages, ...extra];
  } catch (error) {
    run.emit({ type: 'warning', message: `ephemeralMessages threw (ignored): ${describeError(error)}`, taskId: service.taskId, taskIndex: service.taskIndex });
    return messages;
  }
}
