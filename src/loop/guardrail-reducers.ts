/**
 * Guardrails in the turn machine (docs/guardrails.md): the stop a trip becomes, what a trip
 * withholds, and the message an output guardrail in `revise` mode sends back. Pure, like
 * turn-reducers.ts; the checks themselves run in the services (src/guardrails/).
 */
import { tripStop, type GuardrailTrip } from '../contracts/guardrails.js';
import type { OutputRepair } from '../contracts/turn-protocol.js';
import type { StopCondition } from '../contracts/stop.js';

/** The stop of a task whose guardrail tripped. */
export function guardrailStop(trip: GuardrailTrip, at: number): StopCondition {
  return { ...tripStop(trip), at };
}

/** A tripped input or output guardrail withholds the answer from the task's output. */
export function withheld(stop: StopCondition): boolean {
  return stop.reason === 'guardrail_tripped' && (stop.guardrail?.on === 'output' || stop.guardrail?.on === 'input');
}

/** The message that sends an answer an output guardrail tripped on back to the model (`revise`). */
export function revisePrompt(trip: GuardrailTrip, repair: OutputRepair): string {
  return [
    `Your final answer was refused by the guardrail "${trip.name}" (revision ${repair.number} of ${repair.of}): ${trip.reason}`,
    'Write the answer again so that it passes this check.',
  ].join('\n');
}
