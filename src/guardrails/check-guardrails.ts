/**
 * Runs a task's guardrails of one stage, in the order given, and answers the first trip. A
 * guardrail fails closed: a check that throws, answers something else than `{ tripped: boolean }`
 * or does not answer within its `timeoutMs` trips, and the first two also report an `error`
 * event (scope `guardrail`), since they are a fault of the check, not a verdict.
 */
import {
  DEFAULT_GUARDRAIL_TIMEOUT_MS,
  MAX_GUARDRAIL_REASON_CHARS,
  type Guardrail,
  type GuardrailContext,
  type GuardrailSpend,
  type GuardrailStage,
  type GuardrailTrip,
} from '../contracts/guardrails.js';
import type { Clock } from '../contracts/clock.js';
import type { KernelEventBody } from '../contracts/events.js';
import { describeError } from '../contracts/describe-error.js';
import { addUsage, type Usage } from '../contracts/usage.js';

export interface GuardrailScope {
  readonly runId: string;
  readonly taskId: string;
  readonly taskIndex: number;
  readonly turn: number;
  readonly toolName?: string;
  readonly toolCallId?: string;
  readonly output?: unknown;
  /** Aborts when the task stops: no check outlives its task. */
  readonly signal: AbortSignal;
  readonly clock: Clock;
  /** Told of a check that threw or answered nonsense (its trip is reported by the caller). */
  readonly onFault: (message: string) => void;
  /** Told of what a check charged (`context.charge`), as it charges it. */
  readonly onCharge: (usage: Usage, costUsd: number) => void;
}

/** Where a task's guardrails run, as the model caller and the tool runner give it. */
export interface TaskGuardScope {
  readonly guardrails: readonly Guardrail[];
  readonly runId: string;
  readonly taskId: string;
  readonly taskIndex: number;
  readonly turn: number;
  readonly signal: AbortSignal;
  readonly clock: Clock;
  readonly emit: (body: KernelEventBody) => void;
  /** Charges what a check spent: to the run's ledger, live (model calls), or to the tool call's result (tools). */
  readonly charge: (usage: Usage, costUsd: number) => void;
}

export interface GuardrailOutcome {
  readonly trip: GuardrailTrip | undefined;
  /** What the checks charged; undefined when nothing. */
  readonly spent: GuardrailSpend | undefined;
}

/** The guardrails of `stage` among `guardrails`, checked one after another; the first trip, or none, and what they charged. */
export async function checkGuardrails(guardrails: readonly Guardrail[], stage: GuardrailStage, value: unknown, scope: GuardrailScope): Promise<GuardrailOutcome> {
  let spent: GuardrailSpend | undefined;
  const charge = (usage: Usage, costUsd = 0) => {
    // Whatever a check hands over is counted only as far as it is a count.
    const clean = { inputTokens: count(usage?.inputTokens), outputTokens: count(usage?.outputTokens) };
    const cost = count(costUsd);
    spent = { usage: addUsage(spent?.usage ?? { inputTokens: 0, outputTokens: 0 }, clean), costUsd: (spent?.costUsd ?? 0) + cost };
    scope.onCharge(clean, cost);
  };
  for (const guardrail of guardrails) {
    if (guardrail.on !== stage) continue;
    if (scope.signal.aborted) return { trip: undefined, spent };
    const trip = await checkOne(guardrail, value, scope, charge);
    if (trip !== undefined) return { trip, spent };
  }
  return { trip: undefined, spent };
}

function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0;
}

async function checkOne(guardrail: Guardrail, value: unknown, scope: GuardrailScope, charge: GuardrailContext['charge']): Promise<GuardrailTrip | undefined> {
  const mode = guardrail.mode ?? 'stop';
  const trip = (reason: string): GuardrailTrip => ({ name: guardrail.name, on: guardrail.on, reason: cut(reason), mode });
  const timeoutMs = guardrail.timeoutMs ?? DEFAULT_GUARDRAIL_TIMEOUT_MS;
  const controller = new AbortController();
  const onTaskStop = () => controller.abort(scope.signal.reason);
  scope.signal.addEventListener('abort', onTaskStop, { once: true });
  let timer: unknown;
  const timedOut = new Promise<'timeout'>((resolve) => {
    timer = scope.clock.setTimeout(() => resolve('timeout'), timeoutMs);
  });
  const context: GuardrailContext = {
    runId: scope.runId,
    taskId: scope.taskId,
    taskIndex: scope.taskIndex,
    turn: scope.turn,
    stage: guardrail.on,
    ...(scope.toolName === undefined ? {} : { toolName: scope.toolName }),
    ...(scope.toolCallId === undefined ? {} : { toolCallId: scope.toolCallId }),
    ...(scope.output === undefined ? {} : { output: scope.output }),
    signal: controller.signal,
    charge,
  };
  try {
    const answer = await Promise.race([Promise.resolve().then(() => guardrail.check(value, context)), timedOut]);
    if (answer === 'timeout') {
      controller.abort(new Error(`guardrail "${guardrail.name}" timed out`));
      return trip(`the check did not answer within ${timeoutMs} ms`);
    }
    const verdict = readVerdict(answer);
    if (verdict === undefined) {
      const message = `guardrail "${guardrail.name}" answered ${shapeOf(answer)}, not { tripped: boolean }`;
      scope.onFault(message);
      return trip(message);
    }
    return verdict.tripped ? trip(verdict.reason ?? 'no reason given') : undefined;
  } catch (error) {
    const message = `guardrail "${guardrail.name}" threw: ${describeError(error)}`;
    scope.onFault(message);
    return trip(message);
  } finally {
    scope.clock.clearTimeout(timer as never);
    scope.signal.removeEventListener('abort', onTaskStop);
  }
}

/** A verdict read defensively: a check's answer is anything until proven otherwise. */
function readVerdict(answer: unknown): { tripped: boolean; reason?: string } | undefined {
  if (typeof answer !== 'object' || answer === null) return undefined;
  try {
    const { tripped, reason } = answer as { tripped?: unknown; reason?: unknown };
    if (typeof tripped !== 'boolean') return undefined;
    return typeof reason === 'string' && reason.trim() !== '' ? { tripped, reason } : { tripped };
  } catch {
    // A Proxy that throws on read is no verdict.
    return undefined;
  }
}

function shapeOf(answer: unknown): string {
  if (answer === null) return 'null';
  if (Array.isArray(answer)) return 'an array';
  return typeof answer === 'object' ? 'an object without a boolean "tripped"' : typeof answer;
}

function cut(reason: string): string {
  return reason.length <= MAX_GUARDRAIL_REASON_CHARS ? reason : `${reason.slice(0, MAX_GUARDRAIL_REASON_CHARS - 1)}…`;
}
