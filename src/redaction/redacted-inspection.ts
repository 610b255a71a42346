import type { InspectObserver } from '../events/observers.js';
import type { Redactor } from './redactor.js';

interface InspectionEvent {
  readonly type: string;
  readonly actorRef?: { getSnapshot?: () => unknown };
  readonly snapshot?: unknown;
  readonly event?: unknown;
  readonly action?: unknown;
}

const DATA_FIELDS = ['context', 'input', 'output', 'error'] as const;

/**
 * The `inspect` observer as the run's actors call it, with the secrets taken out of what an
 * inspector sends elsewhere (the Stately inspector's page or WebSocket receiver): snapshots
 * (their context, input, output and error), events and action parameters. An actor registration carries the
 * actor itself, which an inspector asks for its snapshot: it gets a view whose `getSnapshot`
 * answers the redacted snapshot, and is otherwise the actor.
 */
export function redactedInspection(observer: InspectObserver, redactor: Redactor): InspectObserver {
  const next = typeof observer === 'function' ? observer : observer.next?.bind(observer);
  if (next === undefined) return observer;
  const snapshotOf = (snapshot: unknown): unknown => {
    if (typeof snapshot !== 'object' || snapshot === null) return snapshot;
    // Machines keep their data in `context`; promise and callback actors in `input`; all in `output`, `error`.
    const copy: Record<string, unknown> = { ...snapshot };
    for (const field of DATA_FIELDS) if (field in copy) copy[field] = redactor.value(copy[field]);
    return copy;
  };
  return (raw: unknown) => {
    if (typeof raw !== 'object' || raw === null) return next(raw);
    const event = raw as InspectionEvent;
    const clean: Record<string, unknown> = { ...event };
    if ('snapshot' in event) clean['snapshot'] = snapshotOf(event.snapshot);
    if ('event' in event) clean['event'] = redactor.value(event.event);
    if ('action' in event) clean['action'] = redactor.value(event.action);
    const actor = event.actorRef;
    if (event.type === '@xstate.actor' && typeof actor === 'object' && actor !== null && typeof actor.getSnapshot === 'function') {
      const getSnapshot = actor.getSnapshot.bind(actor);
      clean['actorRef'] = Object.create(actor, { getSnapshot: { value: () => snapshotOf(getSnapshot()) } });
    }
    next(clean);
  };
}
