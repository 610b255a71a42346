/**
 * What a store that tells readers about new events adds to `CheckpointStore` (Postgres does,
 * through LISTEN/NOTIFY: ADR/0186). A reader following a run (the viewer) waits for `onAppended`
 * and then reads only the events after the last one it has, instead of polling; stores without it
 * are polled.
 */
export interface EventFeed {
  /**
   * Calls `onAppended` soon after events or the result of the run are written by any process,
   * and whenever some may have been missed (a reconnection). Returns the unsubscribe.
   */
  watchEvents(runId: string, onAppended: () => void): () => void;
}

export function hasEventFeed(store: object): store is EventFeed {
  return typeof (store as Partial<EventFeed>).watchEvents === 'function';
}
