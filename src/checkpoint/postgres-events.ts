/**
 * Event notifications of the Postgres store (ADR/0186): each statement that writes events or a
 * result of a run also runs `pg_notify('dualloop_events_<schema>', '<run key>:<last seq>')` — a
 * few bytes, never the event — committed with the rows. A viewer following the run LISTENs
 * through the store's listener and reads the rows after its last seq when told.
 */
import type { EventFeed } from '../contracts/event-feed.js';
import type { PostgresListener } from './postgres-listener.js';

export function eventChannelName(schemaName: string): string {
  return `dualloop_events_${schemaName}`.slice(0, 63);
}

/** `<run key>:<seq>`, the payload a write notifies. */
export function eventPayload(key: number, seq: number): string {
  return `${key}:${seq}`;
}

export function postgresEventFeed(deps: { readonly schemaName: string; readonly listener: PostgresListener; findKey(runId: string): Promise<number | undefined> }): EventFeed {
  const channel = eventChannelName(deps.schemaName);
  /** Watchers by run key. */
  const watchers = new Map<string, Set<() => void>>();
  let unsubscribe: (() => void) | undefined;
  const call = (set: ReadonlySet<() => void> | undefined) => {
    for (const watcher of [...(set ?? [])]) watcher();
  };
  return {
    watchEvents(runId, onAppended) {
      let stopped = false;
      let remove = () => undefined as void;
      void deps
        .findKey(runId)
        .catch(() => undefined)
        .then((key) => {
          if (stopped) return;
          // A run not created yet has no key: it has no events either; the safety resync covers it.
          const id = key === undefined ? `run:${runId}` : String(key);
          let set = watchers.get(id);
          if (set === undefined) watchers.set(id, (set = new Set()));
          set.add(onAppended);
          unsubscribe ??= deps.listener.subscribe(channel, {
            notify: (payload) => call(watchers.get(payload.slice(0, payload.indexOf(':')))),
            resync: () => {
              for (const each of watchers.values()) call(each);
            },
          });
          remove = () => {
            set.delete(onAppended);
            if (set.size === 0) watchers.delete(id);
            if (watchers.size === 0) {
              unsubscribe?.();
              unsubscribe = undefined;
            }
          };
          // Events written while the key was looked up were not seen.
          onAppended();
        });
      return () => {
        stopped = true;
        remove();
      };
    },
  };
}
