import type { ServerResponse } from 'node:http';
import type { Bounds } from '../contracts/bounds.js';
import type { KernelEvent } from '../contracts/events.js';
import type { CheckpointStore, MaybePromise } from '../contracts/store.js';
import { hasEventFeed, type EventFeed } from '../contracts/event-feed.js';
import { ChildRunFinder } from './child-runs.js';
import { writeEvent } from './local-http.js';
import type { RunInfo } from './protocol.js';

export interface RunStreamOptions {
  readonly store: CheckpointStore;
  readonly runId: string;
  /** Send events after this seq only (a reconnecting page's `Last-Event-ID`). */
  readonly afterSeq: number;
  readonly pollMs: number;
  readonly bounds: ((runId: string) => MaybePromise<Bounds | undefined>) | undefined;
  /** Aborts when the page disconnects or the viewer closes. */
  readonly signal: AbortSignal;
}

/** Events per SSE message, so a replay of a long run arrives in a few large messages. */
const BATCH = 500;

/**
 * Streams one run to a page (protocol.ts, StreamMessage): its info, then its events as the store
 * has them — the same path for a run in this process, a run in another process writing the same
 * store, and a finished run (ADR/0082). A store with an event feed (Postgres LISTEN/NOTIFY,
 * ADR/0186) says when the run's log grew, and only the events after the last one sent are read
 * then; other stores (SQLite, memory) are asked for new events every `pollMs`. The audit (the stop
 * tree) goes out at once and again after every `workflow_end`, as soon as the store holds the run's
 * result. The child runs its tool calls started (`agentTool`) go out as they are found
 * (child-runs.ts). Ends when `signal` aborts.
 */
export async function streamRun(response: ServerResponse, options: RunStreamOptions): Promise<void> {
  const { store, runId, signal } = options;
  const record = await store.getRun(runId);
  if (record === undefined) {
    writeEvent(response, { event: 'missing', data: { runId } });
    response.end();
    return;
  }
  const info: RunInfo = { runId, name: record.name, createdAt: record.createdAt, tasks: record.tasks, bounds: await options.bounds?.(runId), parent: record.parent };
  writeEvent(response, { event: 'run', data: info });

  let lastSeq = options.afterSeq;
  const children = new ChildRunFinder(store, runId);
  // A reconnecting page has the events up to `afterSeq`, not the children: they are found again from the whole log.
  if (lastSeq > 0) children.observe((await store.readEvents(runId, 0)).filter((event) => event.seq <= lastSeq));
  let awaitingAudit = true;
  let lastEnd: Extract<KernelEvent, { type: 'workflow_end' }> | undefined;
  const wake = hasEventFeed(store) ? wakeUps(store, runId, signal) : undefined;
  try {
    while (!signal.aborted) {
      wake?.consume();
      await sendNew();
      // While a tool call runs, its child run may be recorded at any moment, and the parent's log does not grow: look again.
      await (wake === undefined ? sleep(options.pollMs, signal) : wake.next(children.looking ? options.pollMs : undefined));
    }
  } finally {
    wake?.stop();
  }

  async function sendNew(): Promise<void> {
    const events: readonly KernelEvent[] = await store.readEvents(runId, lastSeq);
    for (let start = 0; start < events.length && !signal.aborted; start += BATCH) {
      const batch = events.slice(start, start + BATCH);
      lastSeq = batch[batch.length - 1]!.seq;
      writeEvent(response, { event: 'events', id: lastSeq, data: batch });
    }
    children.observe(events);
    if ((await children.lookUp()) && !signal.aborted) writeEvent(response, { event: 'children', data: children.children });
    if (events.length > 0) {
      const last = events[events.length - 1]!;
      lastEnd = last.type === 'workflow_end' ? last : undefined;
      if (lastEnd !== undefined) awaitingAudit = true;
    }
    if (awaitingAudit) {
      const audit = await store.audit(runId);
      // The result is saved just after `workflow_end`: until the store has this one, ask again next round.
      const current = lastEnd === undefined || (audit?.workflow.stop?.at === lastEnd.stop.at && audit.workflow.stop.reason === lastEnd.stop.reason);
      if (audit !== undefined && current) {
        writeEvent(response, { event: 'audit', data: audit });
        awaitingAudit = false;
      }
    }
  }
}

/** The feed's notifications for one run, as "wait until the log may have grown" (or at most `timeoutMs`). */
function wakeUps(feed: EventFeed, runId: string, signal: AbortSignal): { consume(): void; next(timeoutMs?: number): Promise<void>; stop(): void } {
  let pending = false;
  let waiting: (() => void) | undefined;
  const unsubscribe = feed.watchEvents(runId, () => {
    pending = true;
    waiting?.();
  });
  return {
    consume: () => (pending = false),
    next: (timeoutMs) =>
      pending || signal.aborted
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            const timer = timeoutMs === undefined ? undefined : setTimeout(() => done(), timeoutMs);
            const done = () => {
              clearTimeout(timer);
              waiting = undefined;
              signal.removeEventListener('abort', done);
              resolve();
            };
            waiting = done;
            signal.addEventListener('abort', done, { once: true });
          }),
    stop: unsubscribe,
  };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
