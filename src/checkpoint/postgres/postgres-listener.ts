/**
 * The Postgres store's one LISTEN connection (ADR/0186), shared by everything the store watches:
 * commands for running runs (src/checkpoint/postgres/postgres-controls.ts) and appended events for viewers
 * (src/checkpoint/postgres/postgres-events.ts). Opened on the first subscription, not from the pool's
 * working connections. When it is lost (a terminated backend, a server restart, a network cut) it
 * is opened again with exponential backoff, every channel is LISTENed again, and each subscriber
 * is told to `resync`: what was notified while nobody listened is read from the tables then. A
 * slow safety timer also calls `resync` now and then, covering a notification lost any other way.
 */
import type { ClientBase } from 'pg';

export type ListenerClient = ClientBase & { end?: () => Promise<void>; release?: (error?: Error | boolean) => void };

export interface ListenerOptions {
  /** Opens a dedicated connection. */
  readonly connect: () => Promise<ListenerClient>;
  /** How often every subscriber resyncs without a notification (default 5 000 ms). */
  readonly safetyPollMs?: number;
  /** First and longest wait before opening a lost connection again (default 100 and 5 000 ms). */
  readonly backoffMs?: { readonly first: number; readonly longest: number };
}

export interface ChannelSubscriber {
  /** A notification's payload on the channel. */
  notify(payload: string): void;
  /** Look at the tables: notifications may have been missed (a reconnection, the safety timer, a late LISTEN). */
  resync(): void;
}

export interface PostgresListener {
  subscribe(channel: string, subscriber: ChannelSubscriber): () => void;
  close(): Promise<void>;
}

export const DEFAULT_SAFETY_POLL_MS = 5_000;

export function postgresListener(options: ListenerOptions): PostgresListener {
  const backoff = options.backoffMs ?? { first: 100, longest: 5_000 };
  const safetyPollMs = options.safetyPollMs ?? DEFAULT_SAFETY_POLL_MS;
  const channels = new Map<string, Set<ChannelSubscriber>>();
  /** Channels the current connection LISTENs on. */
  const listened = new Set<string>();
  let client: ListenerClient | undefined;
  let connecting = false;
  let failures = 0;
  let retry: ReturnType<typeof setTimeout> | undefined;
  let safety: ReturnType<typeof setInterval> | undefined;
  let closed = false;
  let syncing: Promise<void> = Promise.resolve();

  const everyone = (action: (subscriber: ChannelSubscriber) => void, only?: ReadonlySet<string>) => {
    for (const [channel, subscribers] of channels) if (only === undefined || only.has(channel)) for (const subscriber of [...subscribers]) action(subscriber);
  };

  const dispose = (lost: ListenerClient) => {
    lost.removeAllListeners('notification');
    if (lost.release !== undefined) lost.release(true);
    else void lost.end?.().catch(() => undefined);
  };

  const lose = (lost: ListenerClient) => {
    if (client !== lost) return;
    client = undefined;
    listened.clear();
    dispose(lost);
    schedule();
  };

  const schedule = () => {
    if (closed || retry !== undefined || connecting || client !== undefined || channels.size === 0) return;
    const delay = failures === 0 ? 0 : Math.min(backoff.longest, backoff.first * 2 ** (failures - 1));
    retry = setTimeout(() => {
      retry = undefined;
      void open();
    }, delay * (0.75 + Math.random() * 0.5));
    retry.unref();
  };

  /** LISTENs on every subscribed channel the connection does not listen on yet, then resyncs their subscribers. */
  const sync = (current: ListenerClient): Promise<void> =>
    (syncing = syncing.then(async () => {
      const added = new Set<string>();
      for (const channel of channels.keys()) {
        if (listened.has(channel) || client !== current) continue;
        await current.query(`LISTEN ${quoteChannel(channel)}`);
        listened.add(channel);
        added.add(channel);
      }
      // A notification sent before LISTEN took effect was missed: look once now.
      if (added.size > 0) everyone((subscriber) => subscriber.resync(), added);
    }).catch(() => lose(current)));

  const open = async () => {
    if (closed || connecting || client !== undefined) return;
    connecting = true;
    let opened: ListenerClient | undefined;
    try {
      opened = await options.connect();
    } catch {
      failures += 1;
    }
    connecting = false;
    if (opened === undefined) return schedule();
    if (closed) return dispose(opened);
    const current = opened;
    current.on('error', () => lose(current));
    current.on('end', () => lose(current));
    current.on('notification', (message) => {
      const subscribers = channels.get(message.channel);
      for (const subscriber of [...(subscribers ?? [])]) subscriber.notify(message.payload ?? '');
    });
    client = current;
    await sync(current);
    if (client === current) failures = 0;
  };

  return {
    subscribe(channel, subscriber) {
      let subscribers = channels.get(channel);
      if (subscribers === undefined) channels.set(channel, (subscribers = new Set()));
      subscribers.add(subscriber);
      if (safety === undefined && !closed) {
        safety = setInterval(() => everyone((each) => each.resync()), safetyPollMs);
        safety.unref();
      }
      if (client !== undefined) void sync(client);
      else schedule();
      return () => {
        subscribers.delete(subscriber);
        if (subscribers.size === 0) channels.delete(channel);
        if (channels.size === 0 && safety !== undefined) {
          clearInterval(safety);
          safety = undefined;
        }
      };
    },
    async close() {
      closed = true;
      if (retry !== undefined) clearTimeout(retry);
      if (safety !== undefined) clearInterval(safety);
      retry = undefined;
      safety = undefined;
      channels.clear();
      await syncing;
      const current = client;
      client = undefined;
      if (current !== undefined) {
        current.removeAllListeners('error');
        current.removeAllListeners('end');
        current.on('error', () => undefined);
        dispose(current);
      }
    },
  };
}

function quoteChannel(channel: string): string {
  return `"${channel.replaceAll('"', '""')}"`;
}
