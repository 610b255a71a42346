/**
 * The rate limiter of one model instance (docs/operations.md, "Rate limits"): requests and tokens
 * counted over a sliding minute. Callers are served in order: a call that does not fit waits —
 * and every call after it with it — until the oldest counted call leaves the window, or until a
 * provider's `retry-after` has passed. A call's tokens are reserved when it starts (its input
 * estimate plus the model's `maxOutputTokens`) and settled with its real usage when it answers.
 *
 * Invariant (test/providers/rate-limit.property.test.ts): no half-open minute holds more call
 * starts than `requestsPerMinute`, nor more reserved tokens than `tokensPerMinute` — except one
 * call alone in its minute, which always may start (a call larger than the limit would wait for ever).
 */
import type { Clock } from '../contracts/clock.js';
import type { RateLimit } from '../contracts/model.js';
import type { RateWaitReason } from '../contracts/rate-windows.js';

export const WINDOW_MS = 60_000;

/** A call counted in the window: when it started, and its tokens (reserved, then settled). */
export interface Counted {
  readonly at: number;
  tokens: number;
}

/**
 * How long until a call of `tokens` fits, and why it does not yet; undefined when it fits now.
 * `counted` holds the calls of the last minute, oldest first. Pure: the Postgres window uses it too.
 */
export function blockedFor(limit: RateLimit, counted: readonly Counted[], pausedUntil: number, now: number, tokens: number): { waitMs: number; reason: WaitReason } | undefined {
  if (now < pausedUntil) return { waitMs: pausedUntil - now, reason: 'retry_after' };
  const oldest = counted[0];
  if (oldest === undefined) return undefined;
  const { requestsPerMinute: requests, tokensPerMinute: perMinute } = limit;
  if (requests !== undefined && counted.length >= requests) {
    // The call may start once the count falls below the limit: when the entry `length - requests` leaves.
    const freeing = counted[counted.length - requests]!;
    return { waitMs: Math.max(1, freeing.at + WINDOW_MS - now), reason: 'requests' };
  }
  if (perMinute !== undefined && counted.reduce((sum, entry) => sum + entry.tokens, 0) + tokens > perMinute) {
    return { waitMs: Math.max(1, oldest.at + WINDOW_MS - now), reason: 'tokens' };
  }
  return undefined;
}

/** A started call: settle it with what it really used. */
export interface RateTicket {
  settle(tokens: number | undefined): void;
}

export type WaitReason = RateWaitReason;

export class RateLimiter {
  private readonly counted: Counted[] = [];
  private pausedUntil = 0;
  private turn: Promise<unknown> = Promise.resolve();
  /** Wakes the caller waiting for tokens: a settled call may have freed what it waits for. */
  private wake: (() => void) | undefined;

  constructor(
    private readonly limit: RateLimit,
    private readonly clock: Clock,
  ) {}

  /**
   * Waits for capacity for a call reserving `tokens`; tells `onWait` each time it has to wait.
   * Resolves undefined when `signal` aborts first.
   */
  acquire(tokens: number, signal: AbortSignal, onWait: (waitMs: number, reason: WaitReason) => void): Promise<RateTicket | undefined> {
    const mine = this.turn.then(() => this.admit(tokens, signal, onWait));
    // The next caller waits for this one to be admitted (or to give up), never longer.
    this.turn = mine.catch(() => undefined);
    return mine;
  }

  /** A provider said to wait (`retry-after`): no call starts before then. */
  pause(waitMs: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, this.clock.now() + waitMs);
  }

  private async admit(tokens: number, signal: AbortSignal, onWait: (waitMs: number, reason: WaitReason) => void): Promise<RateTicket | undefined> {
    for (;;) {
      if (signal.aborted) return undefined;
      const now = this.clock.now();
      this.prune(now);
      const blocked = blockedFor(this.limit, this.counted, this.pausedUntil, now, tokens);
      if (blocked === undefined) {
        const entry: Counted = { at: now, tokens };
        this.counted.push(entry);
        return {
          settle: (used) => {
            if (used === undefined || !Number.isFinite(used)) return;
            entry.tokens = Math.max(0, used);
            this.wake?.();
          },
        };
      }
      onWait(blocked.waitMs, blocked.reason);
      if (!(await this.sleep(blocked.waitMs, signal))) return undefined;
    }
  }

  private prune(now: number): void {
    while (this.counted.length > 0 && this.counted[0]!.at <= now - WINDOW_MS) this.counted.shift();
  }

  private sleep(ms: number, signal: AbortSignal): Promise<boolean> {
    return sleepOn(this.clock, ms, signal, (wake) => (this.wake = wake));
  }
}

/**
 * Sleeps `ms` on `clock`: true when it woke (the time passed, or `onWakeable`'s wake was called),
 * false when `signal` aborted first.
 */
export function sleepOn(clock: Clock, ms: number, signal: AbortSignal, onWakeable?: (wake: (() => void) | undefined) => void): Promise<boolean> {
  return new Promise((resolve) => {
    const done = (woke: boolean) => {
      clock.clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      onWakeable?.(undefined);
      resolve(woke);
    };
    onWakeable?.(() => done(true));
    const onAbort = () => done(false);
    const timer = clock.setTimeout(() => done(true), ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
