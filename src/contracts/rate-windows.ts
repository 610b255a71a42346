/**
 * A store that keeps rate-limit windows (Postgres does), so that every process of a fleet using a
 * model with `rateLimit.shared: true` counts in one window (docs/operations.md, "Rate limits").
 * The window is keyed by the model's provider and id; time is the database's, as for leases.
 */
import type { RateLimit } from './model.js';

export type RateWaitReason = 'requests' | 'tokens' | 'retry_after';

export interface SharedRateWindows {
  /** Counts a call of `tokens` in the window when it fits (its id, to settle it), else says how long to wait and why. */
  takeRate(key: string, limit: RateLimit, tokens: number): Promise<{ readonly id: string } | { readonly waitMs: number; readonly reason: RateWaitReason }>;
  /** Replaces a counted call's reserved tokens with what it used. */
  settleRate(key: string, id: string, tokens: number): Promise<void>;
  /** No call of the key starts for `waitMs` (a provider's `retry-after`). */
  pauseRate(key: string, waitMs: number): Promise<void>;
}

export function hasSharedRateWindows(store: object): store is SharedRateWindows {
  const value = store as Partial<SharedRateWindows>;
  return typeof value.takeRate === 'function' && typeof value.settleRate === 'function' && typeof value.pauseRate === 'function';
}
