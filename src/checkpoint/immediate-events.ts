/**
 * Events every durable store commits at once, each in its own commit: queue changes. No checkpoint
 * holds them yet, and a resume replays them from the log, so a crash right after `steer()` must
 * not lose one.
 */
export const IMMEDIATE_EVENT_TYPES: ReadonlySet<string> = new Set(['message_queued', 'queue_cleared']);
