import type { InspectObserver } from './observers.js';

interface Microstep {
  readonly type: '@xstate.microstep';
  readonly actorRef?: unknown;
  readonly rootId?: unknown;
  readonly snapshot?: unknown;
  readonly event?: unknown;
}

const isMicrostep = (event: unknown): event is Microstep =>
  typeof event === 'object' && event !== null && (event as { type?: unknown }).type === '@xstate.microstep';

/**
 * XState reports a snapshot (`@xstate.snapshot`) only where a machine rests after a step; the states
 * it passes through within a step (INIT, TURN_INIT, OBSERVE, NEXT_TURN) appear only in its
 * `@xstate.microstep` events. The `inspect` observer gets every inspection event as XState sends it
 * and, right after each microstep, the state it entered as a snapshot of the same actor (same
 * snapshot, same event): an observer that follows snapshots, like the Stately inspector, sees every
 * state the run entered, in order; the last state of a step arrives twice (ADR 0362).
 */
export function everyStateAsSnapshot(observer: InspectObserver): InspectObserver {
  const next = typeof observer === 'function' ? observer : observer.next?.bind(observer);
  if (next === undefined) return observer;
  return (event: unknown) => {
    next(event);
    if (isMicrostep(event)) next({ type: '@xstate.snapshot', actorRef: event.actorRef, rootId: event.rootId, snapshot: event.snapshot, event: event.event });
  };
}
