import { errorCodeOfScope } from '../contracts/error-scopes.js';
import type { KernelEvent, KernelEventBody } from '../contracts/events.js';
import type { EventRedaction } from '../redaction/event-redaction.js';

export type EventListener = (event: KernelEvent) => void;

/**
 * Stamps every event of one run with `runId`, a strictly increasing `seq` and the clock time,
 * redacts it (the run's one redaction boundary for events, ADR/0100), then hands it to each
 * listener in order (stream, logger, store). A listener must not throw; the kernel wraps the
 * ones that can fail. An event emitted while another is being handed out (a listener's failure
 * reported as an `error` event, or a run stopped from inside a listener) waits until that one
 * reached every listener: each listener sees the events in `seq` order.
 */
export class EventSink {
  private seq: number;
  private readonly waiting: KernelEvent[] = [];
  private delivering = false;

  constructor(
    readonly runId: string,
    private readonly now: () => number,
    private readonly listeners: readonly EventListener[],
    lastSeq = 0,
    private readonly redaction?: EventRedaction,
  ) {
    this.seq = lastSeq;
  }

  get lastSeq(): number {
    return this.seq;
  }

  /**
   * Takes ownership of `body`: it is stamped in place (no copy per event, issue 16), so every
   * caller passes a fresh object and does not touch it afterwards. Redaction copies only an event
   * that holds a secret.
   */
  emit(body: KernelEventBody): void {
    const redaction = this.redaction;
    if (redaction === undefined) {
      this.deliver(this.stamp(body));
      return;
    }
    // A streamed delta may be held back (it could be the start of a key) or flushed before its end.
    for (const part of redaction.split(body)) this.deliver(redaction.clean(this.stamp(part)));
  }

  private stamp(body: KernelEventBody): KernelEvent {
    this.seq += 1;
    const stamp = body as KernelEventBody & { runId: string; seq: number; at: number };
    stamp.runId = this.runId;
    stamp.seq = this.seq;
    stamp.at = this.now();
    // Every reported error carries a code (ADR/0170): the failed part's, unless the emitter named one.
    if (stamp.type === 'error' && stamp.code === undefined) (stamp as { code?: string }).code = errorCodeOfScope(stamp.scope);
    return stamp as KernelEvent;
  }

  private deliver(event: KernelEvent): void {
    if (this.delivering) {
      this.waiting.push(event);
      return;
    }
    this.delivering = true;
    try {
      for (const listener of this.listeners) listener(event);
      for (let index = 0; index < this.waiting.length; index += 1) {
        const next = this.waiting[index]!;
        for (const listener of this.listeners) listener(next);
      }
    } finally {
      this.waiting.length = 0;
      this.delivering = false;
    }
  }
}
