/**
 * A model call under its model's `rateLimit` (docs/operations.md, "Rate limits"). Each model
 * instance has one limiter for the whole process, made on its first limited call; with
 * `shared: true` and a store that keeps rate windows (Postgres), the window lives in the store and
 * the fleet shares it. A provider's `rate_limited` answer pauses the limiter (`retry-after`, else a
 * growing backoff) and the call is made again, at most `MAX_RATE_LIMITED_RETRIES` times; the
 * task's deadline and cancel still end the wait.
 */
import type { Clock } from '../contracts/clock.js';
import type { Model, ModelRequest, ModelResult, RateLimit } from '../contracts/model.js';
import { CHARACTERS_PER_TOKEN } from './estimate-usage.js';
import { RateLimiter, type RateTicket, type WaitReason } from './rate-limiter.js';

export const MAX_RATE_LIMITED_RETRIES = 5;
const FIRST_BACKOFF_MS = 1_000;

/** Where a limiter's window lives: this process (the default), or a store that shares it. */
export interface RateWindow {
  acquire(tokens: number, signal: AbortSignal, onWait: (waitMs: number, reason: WaitReason) => void): Promise<RateTicket | undefined>;
  pause(waitMs: number): void;
}

const local = new WeakMap<Model, RateLimiter>();

/** The model's limit, read once and checked (a model is any object: a bad limit is no limit, said by `rateLimitIssues`). */
export function rateLimitOf(model: Model): RateLimit | undefined {
  const limit = model.rateLimit;
  if (limit === undefined || typeof limit !== 'object' || limit === null) return undefined;
  return limit.requestsPerMinute === undefined && limit.tokensPerMinute === undefined ? undefined : limit;
}

/** This process's window of the model, made at its first limited call on `clock`. */
export function localWindow(model: Model, limit: RateLimit, clock: Clock): RateWindow {
  let limiter = local.get(model);
  if (limiter === undefined) local.set(model, (limiter = new RateLimiter(limit, clock)));
  return limiter;
}

/** What a call reserves: its input estimated at 4 characters a token, plus the answer's cap when the model has one. */
export function reservedTokens(model: Model, request: Pick<ModelRequest, 'messages' | 'tools'>): number {
  const sent = JSON.stringify(request.messages).length + (request.tools.length === 0 ? 0 : JSON.stringify(request.tools).length);
  const cap = typeof model.maxOutputTokens === 'number' && Number.isFinite(model.maxOutputTokens) ? model.maxOutputTokens : 0;
  return Math.ceil(sent / CHARACTERS_PER_TOKEN) + cap;
}

export interface LimitedCallOptions {
  readonly window: RateWindow;
  /** Told each time the call waits: how long, and why. */
  readonly onWait: (waitMs: number, reason: WaitReason) => void;
}

export async function callWithinRateLimit(model: Model, request: ModelRequest, options: LimitedCallOptions): Promise<ModelResult> {
  const tokens = reservedTokens(model, request);
  for (let retry = 0; ; retry += 1) {
    const ticket = await options.window.acquire(tokens, request.signal, options.onWait);
    if (ticket === undefined) return { type: 'failure', code: 'aborted', message: 'the call was aborted while it waited for its rate limit' };
    const result = await model.call(request);
    ticket.settle(result.usage === undefined ? undefined : result.usage.inputTokens + result.usage.outputTokens);
    if (result.type !== 'failure' || result.code !== 'rate_limited' || retry >= MAX_RATE_LIMITED_RETRIES || request.signal.aborted) return result;
    const waitMs = typeof result.retryAfterMs === 'number' && result.retryAfterMs > 0 ? result.retryAfterMs : FIRST_BACKOFF_MS * 2 ** retry;
    options.window.pause(waitMs);
  }
}
