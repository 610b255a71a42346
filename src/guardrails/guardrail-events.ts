/** What guardrails report: a trip (`guardrail_tripped`) and a faulty check (`error`, scope `guardrail`). */
import type { GuardrailTrip } from '../contracts/guardrails.js';
import type { KernelEventBody } from '../contracts/events.js';

export interface GuardrailPlace {
  readonly taskId: string;
  readonly taskIndex: number;
  readonly turn: number;
  readonly toolCallId?: string;
}

export function guardrailEvents(emit: (body: KernelEventBody) => void, place: GuardrailPlace) {
  return {
    tripped: (trip: GuardrailTrip) => emit({ type: 'guardrail_tripped', ...place, name: trip.name, on: trip.on, reason: trip.reason, mode: trip.mode }),
    fault: (message: string) => emit({ type: 'error', scope: 'guardrail', message, taskId: place.taskId, taskIndex: place.taskIndex }),
  };
}

/** The guardrails a task runs: the kernel's, or those of them it names. */
export function guardrailsOfTask<T extends { readonly name: string }>(all: readonly T[], names: readonly string[] | undefined): readonly T[] {
  if (names === undefined) return all;
  const wanted = new Set(names);
  return all.filter((guardrail) => wanted.has(guardrail.name));
}
