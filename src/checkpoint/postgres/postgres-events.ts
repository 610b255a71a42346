/**
 * Event notifications of the Postgres store (ADR/0186). A reader that follows a run registers a
 * row in `followers` (renewed while it follows, expiring when it stops or dies); while a run has
 * one, each statement that writes its events or result also runs
 * `pg_notify('dualloop_events_<schema>', '<run key>:<last seq>')` — a few bytes, never the event —
 * committed with the rows. The follower LISTENs through the store's listener and reads the rows
 * after its last seq when told, and once after registering (what was written before it was not
 * notified).
 */
import { randomUUID } from 'node:crypto';
import type { EventFeed } from '../../contracts/event-feed.js';
import type { PostgresListener } from './postgres-listener.js';
import { NOW_MS } from './postgres-clock.js';

/** How long a follower's row lives without renewal; renewed every third of it. */
export const FOLLOWER_TTL_MS = 30_000;

export function eventChannelName(schemaName: string): string {
  return `dualloop_events_${schemaName}`.slice(0, 63);
}

/** `<run key>:<seq>`, the payload a write notifies. */
export function eventPayload(key: number, seq: number): string {
  return `${key}:${seq}`;
}

export interface EventFeedDeps {
  /** The quoted schema. */
  readonly schema: string;
  readonly schemaName: string;
  readonly prefix: string;
  readonly listener: PostgresListener;
  findKey(runId: string): Promise<number | undefined>;
  query(name: string, text: string, values: readonly unknown[]): Promise<readonly Record<string, unknown>[]>;
}

export function postgresEventFeed(deps: EventFeedDeps): EventFeed {
  const channel = eventChannelName(deps.schemaName);
  /** Watchers by run key. */
  const watchers = new Map<string, Set<() => void>>();
  let unsubscribe: (() => void) | undefined;
  const call = (set: ReadonlySet<() => void> | undefined) => {
    for (const watcher of [...(set ?? [])]) watcher();
  };
  // Renews this follower's row (and clears rows of followers long gone); a failure is retried at the next renewal.
  const register = (id: string, key: number) =>
    deps
      .query(
        `${deps.prefix}_follow`,
        `WITH gone AS (DELETE FROM ${deps.schema}.followers WHERE expires_at < ${NOW_MS} - $3::bigint)
         INSERT INTO ${deps.schema}.followers (id, run, expires_at) VALUES ($1, $2, ${NOW_MS} + $3::bigint)
         ON CONFLICT (id) DO UPDATE SET expires_at = excluded.expires_at`,
        [id, key, FOLLOWER_TTL_MS],
      )
      .catch(() => undefined);
  const unregister = (id: string) => void deps.query(`${deps.prefix}_unfollow`, `DELETE FROM ${deps.schema}.followers WHERE id = $1`, [id]).catch(() => undefined);

  return {
    watchEvents(runId, onAppended) {
      let stopped = false;
      let remove = () => undefined as void;
      void (async () => {
        const key = await deps.findKey(runId).catch(() => undefined);
        if (stopped) return;
        if (key === undefined) {
          // No such run (yet): nothing to follow; the safety resync of the listener still calls.
          remove = deps.listener.subscribe(channel, { notify: () => undefined, resync: onAppended });
          return;
        }
        const id = randomUUID();
        await register(id, key);
        if (stopped) return unregister(id);
        const renewal = setInterval(() => void register(id, key), FOLLOWER_TTL_MS / 3);
        renewal.unref();
        let set = watchers.get(String(key));
        if (set === undefined) watchers.set(String(key), (set = new Set()));
        set.add(onAppended);
        unsubscribe ??= deps.listener.subscribe(channel, {
          notify: (payload) => call(watchers.get(payload.slice(0, payload.indexOf(':')))),
          resync: () => {
            for (const each of watchers.values()) call(each);
          },
        });
        remove = () => {
          clearInterval(renewal);
          unregister(id);
          set.delete(onAppended);
          if (set.size === 0) watchers.delete(String(key));
          if (watchers.size === 0) {
            unsubscribe?.();
            unsubscribe = undefined;
          }
        };
        // Events written before the follower was registered were not notified.
        onAppended();
      })();
      return () => {
        stopped = true;
        remove();
      };
    },
  };
}
