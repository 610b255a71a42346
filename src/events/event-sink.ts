import type { KernelEvent, KernelEventBody } from '../contracts/events.js';

export type EventListener = (event: KernelEvent) => void;

/**
 * Stamps every event of one run with `runId`, a strictly increasing `seq` and the clock time,
 * then hands it to each listener in order (stream, logger, store). A listener must not throw;
 * the kernel wraps the ones that can fail.
 */
export class EventSink {
  private seq: number;

  constructor(
    readonly runId: string,
    private readonly now: () => number,
    private readonly listeners: readonly EventListener[],
    lastSeq = 0,
  ) {
    this.seq = lastSeq;
  }

  get lastSeq(): number {
    return this.seq;
  }

  emit(body: KernelEventBody): KernelEvent {
    this.seq += 1;
    const event = { ...body, runId: this.runId, seq: this.seq, at: this.now() } as KernelEvent;
    for (const listener of this.listeners) listener(event);
    return event;
  }
}
