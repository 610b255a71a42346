import type { KernelEvent } from '../contracts/events.js';

interface Consumer {
  readonly queue: KernelEvent[];
  wake: (() => void) | undefined;
}

/**
 * The async iterable behind `WorkflowRun`. Events emitted before the first iterator attaches are
 * kept and handed to it, so `for await` after `start()` misses nothing; after that each iterator
 * sees the events from when it attached, and consumed events are not retained.
 */
export class EventStream implements AsyncIterable<KernelEvent> {
  private backlog: KernelEvent[] | undefined = [];
  private readonly consumers = new Set<Consumer>();
  private closed = false;

  push(event: KernelEvent): void {
    if (this.backlog !== undefined) {
      this.backlog.push(event);
      return;
    }
    for (const consumer of this.consumers) {
      consumer.queue.push(event);
      const wake = consumer.wake;
      if (wake !== undefined) {
        consumer.wake = undefined;
        wake();
      }
    }
  }

  close(): void {
    this.closed = true;
    for (const consumer of this.consumers) {
      const wake = consumer.wake;
      consumer.wake = undefined;
      wake?.();
    }
  }

  [Symbol.asyncIterator](): AsyncIterator<KernelEvent> {
    const consumer: Consumer = { queue: this.backlog ?? [], wake: undefined };
    this.backlog = undefined;
    this.consumers.add(consumer);
    let head = 0;
    const finish = (): IteratorResult<KernelEvent> => {
      this.consumers.delete(consumer);
      return { done: true, value: undefined };
    };
    return {
      next: async (): Promise<IteratorResult<KernelEvent>> => {
        for (;;) {
          if (head < consumer.queue.length) {
            const value = consumer.queue[head]!;
            head += 1;
            // A consumer that keeps up empties its queue: consumed events are not held for it (a
            // paused run in flight kept every event it had emitted, issue 16).
            if (head === consumer.queue.length) {
              consumer.queue.length = 0;
              head = 0;
            } else if (head > 1024) {
              consumer.queue.splice(0, head);
              head = 0;
            }
            return { done: false, value };
          }
          if (this.closed) return finish();
          await new Promise<void>((resolve) => {
            consumer.wake = resolve;
          });
        }
      },
      return: async (): Promise<IteratorResult<KernelEvent>> => finish(),
    };
  }
}
