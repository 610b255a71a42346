/**
 * Guardrails on tool calls (docs/guardrails.md): `tool_call` ones check a call's validated
 * arguments before the policy gate, `tool_result` ones check what a tool returned before the model
 * sees it. A trip refuses the call (it does not run) or withholds the result (the model sees why,
 * not the result); the result carries the trip, so the task stops on it at CHECK_STOP unless the
 * guardrail's mode is `revise`. A withheld result is recorded withheld: a resume replays the trip.
 */
import type { GuardrailTrip } from '../contracts/guardrails.js';
import type { ToolCall } from '../contracts/messages.js';
import type { ToolResult } from '../contracts/tool.js';
import { refusedResult } from '../tools/tool-results.js';
import { checkGuardrails, type TaskGuardScope } from './check-guardrails.js';
import { guardrailEvents } from './guardrail-events.js';

export type ToolGuardScope = TaskGuardScope;

/** A refusal when a `tool_call` guardrail trips on the call's arguments; nothing when it may run. */
export async function guardToolCall(call: ToolCall, args: unknown, scope: ToolGuardScope): Promise<ToolResult | undefined> {
  const trip = await check('tool_call', call, args, scope);
  if (trip === undefined) return undefined;
  return { ...refusedResult(call, refusal(trip, 'refused this call')), guardrail: trip };
}

/** The result withheld when a `tool_result` guardrail trips on it (on its text, as the model would see it); else the result. */
export async function guardToolResult(call: ToolCall, result: ToolResult, scope: ToolGuardScope): Promise<ToolResult> {
  const trip = await check('tool_result', call, result.content, scope);
  if (trip === undefined) return result;
  const message = refusal(trip, 'withheld the result of this call');
  return { ...result, result: message, content: `Error: ${message}`, isError: true, terminate: false, guardrail: trip };
}

async function check(stage: 'tool_call' | 'tool_result', call: ToolCall, value: unknown, scope: ToolGuardScope): Promise<GuardrailTrip | undefined> {
  if (!scope.guardrails.some((guardrail) => guardrail.on === stage)) return undefined;
  const place = { taskId: scope.taskId, taskIndex: scope.taskIndex, turn: scope.turn, toolCallId: call.id };
  const events = guardrailEvents(scope.emit, place);
  const outcome = await checkGuardrails(scope.guardrails, stage, value, {
    runId: scope.runId,
    ...place,
    toolName: call.name,
    signal: scope.signal,
    clock: scope.clock,
    onFault: events.fault,
    onCharge: scope.charge,
  });
  if (outcome.trip !== undefined && !scope.signal.aborted) events.tripped(outcome.trip);
  return outcome.trip;
}

function refusal(trip: GuardrailTrip, what: string): string {
  return `guardrail "${trip.name}" ${what}: ${trip.reason}`;
}
