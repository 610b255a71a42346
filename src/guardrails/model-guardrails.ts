/**
 * Guardrails around a task's model calls (docs/guardrails.md): `input` ones check the task's
 * description before its first call (a trip: the model is not called), `output` ones check an
 * answer without tool calls — the final answer, or the wrap-up call's — once it matched the task's
 * `output` schema where it has one.
 */
import type { GuardrailSpend } from '../contracts/guardrails.js';
import type { ModelResult } from '../contracts/model.js';
import type { OutputCheck } from '../contracts/typed-output.js';
import { addUsage } from '../contracts/usage.js';
import { checkGuardrails, type GuardrailOutcome, type TaskGuardScope } from './check-guardrails.js';
import { guardrailEvents } from './guardrail-events.js';

export type ModelGuardScope = TaskGuardScope;

const NOTHING: GuardrailOutcome = { trip: undefined, spent: undefined };

/** The call is the task's first: its description is checked before the model sees it. */
export function guardInput(description: string, first: boolean, scope: ModelGuardScope): Promise<GuardrailOutcome> {
  return first ? check('input', description, undefined, scope) : Promise.resolve(NOTHING);
}

/** An answer without tool calls (that matched the task's schema, if any) is checked before the task may end with it. */
export function guardOutput(result: ModelResult, output: OutputCheck | undefined, scope: ModelGuardScope): Promise<GuardrailOutcome> {
  if (result.type !== 'response' || result.toolCalls.length > 0 || output?.ok === false) return Promise.resolve(NOTHING);
  return check('output', result.text, output?.ok === true ? { value: output.value } : undefined, scope);
}

/** Two places' spend together. */
export function sumSpend(a: GuardrailSpend | undefined, b: GuardrailSpend | undefined): GuardrailSpend | undefined {
  if (a === undefined || b === undefined) return a ?? b;
  return { usage: addUsage(a.usage, b.usage), costUsd: a.costUsd + b.costUsd };
}

/** What a call without a model answer records when an input guardrail tripped: nothing spent, nothing said. */
export const NOT_CALLED: ModelResult = { type: 'response', text: '', toolCalls: [], usage: { inputTokens: 0, outputTokens: 0 }, costUsd: 0, finishReason: 'stop' };

async function check(stage: 'input' | 'output', value: string, parsed: { readonly value: unknown } | undefined, scope: ModelGuardScope): Promise<GuardrailOutcome> {
  if (!scope.guardrails.some((guardrail) => guardrail.on === stage)) return NOTHING;
  const place = { taskId: scope.taskId, taskIndex: scope.taskIndex, turn: scope.turn };
  const events = guardrailEvents(scope.emit, place);
  const outcome = await checkGuardrails(scope.guardrails, stage, value, {
    runId: scope.runId,
    ...place,
    ...(parsed === undefined ? {} : { output: parsed.value }),
    signal: scope.signal,
    clock: scope.clock,
    onFault: events.fault,
    onCharge: scope.charge,
  });
  if (outcome.trip !== undefined && !scope.signal.aborted) events.tripped(outcome.trip);
  return outcome;
}
