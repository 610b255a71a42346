import type { KernelEvent } from '../contracts/events.js';
import type { CheckpointStore } from '../contracts/store.js';
import { describeError } from '../errors.js';
import type { KernelLogger } from './observers.js';
import type { EventListener } from './event-sink.js';

const NOISY = new Set<KernelEvent['type']>(['message_update', 'tool_execution_update']);

/**
 * One JSON line per event on a child of the given pino logger. Events reach it redacted (the
 * sink is the boundary, ADR/0100). Streaming updates log at `debug`, errors at `error`, warnings
 * at `warn`, everything else at `info`.
 */
export function loggerListener(logger: KernelLogger, runId: string): EventListener {
  const log = logger.child({ runId });
  return (event) => {
    const line = { event };
    if (event.type === 'error') log.error(line, event.type);
    else if (event.type === 'warning') log.warn(line, event.type);
    else if (NOISY.has(event.type)) log.debug(line, event.type);
    else log.info(line, event.type);
  };
}

/**
 * Appends every event to the store's log; the first failure stops the run `error` (`fail`
 * reports it as an `error` event, scope `store`). After it, only that `error` event is still
 * tried once, so a store that failed for a moment keeps the cause for `dualloop audit`.
 * Events are already free of secrets: the sink redacted them (ADR/0100).
 *
 * Consecutive `message_update` events of one model call are stored as one (ADR 0114): a model that
 * streams 1 MB as 100 000 deltas costs one row, not 100 000. The stored event carries every delta
 * joined and the `seq` and `at` of the last one, so `seq` still grows and a resume continues after
 * it; it is written before the next event of any other kind. Live listeners see every delta.
 */
export function storeListener(store: CheckpointStore, fail: (detail: string) => void): EventListener {
  let failed = false;
  let explained = false;
  const onError = (error: unknown) => {
    if (failed) return;
    failed = true;
    fail(`event log write failed: ${describeError(error)}`);
  };
  const append = (event: KernelEvent) => {
    try {
      const pending = store.appendEvent(event);
      if (pending instanceof Promise) pending.catch(onError);
    } catch (error) {
      onError(error);
    }
  };
  let updates: { last: MessageUpdate; deltas: string[] } | undefined;
  const flush = () => {
    if (updates === undefined) return;
    const { last, deltas } = updates;
    updates = undefined;
    append(deltas.length === 1 ? last : { ...last, delta: deltas.join('') });
  };
  let closed = false;
  return (event) => {
    // workflow_end is the last stored event of a segment: whatever a late tool, gate or hook
    // reports after it (and a final error) reaches live listeners only (ADR 0116).
    if (closed) return;
    if (event.type === 'workflow_end') closed = true;
    if (failed) {
      if (explained || event.type !== 'error' || event.scope !== 'store') return;
      explained = true;
      try {
        const pending = store.appendEvent(event);
        if (pending instanceof Promise) pending.catch(() => undefined);
      } catch {
        // The store is failing: the run's stop detail still says why.
      }
      return;
    }
    if (event.type === 'message_update') {
      if (updates !== undefined && !sameMessage(updates.last, event)) flush();
      if (updates === undefined) updates = { last: event, deltas: [event.delta] };
      else {
        updates.last = event;
        updates.deltas.push(event.delta);
      }
      return;
    }
    flush();
    if (!failed) append(event);
  };
}

type MessageUpdate = Extract<KernelEvent, { type: 'message_update' }>;

function sameMessage(a: MessageUpdate, b: MessageUpdate): boolean {
  return a.taskId === b.taskId && a.taskIndex === b.taskIndex && a.turn === b.turn;
}

/**
 * A listener that may throw (the user's logger, the inspect observer): its first throw turns it
 * off and is handed to `fail`, which reports it and stops the run `error`; the event still reaches
 * the other listeners.
 */
export function guardedListener<T = KernelEvent>(listener: (value: T) => void, fail: (error: unknown) => void): (value: T) => void {
  let failed = false;
  return (value) => {
    if (failed) return;
    try {
      listener(value);
    } catch (error) {
      failed = true;
      fail(error);
    }
  };
}
