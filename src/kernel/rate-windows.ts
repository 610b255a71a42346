/**
 * The window a rate-limited model's calls count in (docs/operations.md, "Rate limits"): the
 * process's own, per model instance — shared by every run, branch and child of the process — or,
 * with `rateLimit.shared: true` on a store that keeps windows (Postgres), the store's, shared by the
 * fleet under the model's provider and id. A store that keeps none falls back to the process's.
 */
import type { Clock } from '../contracts/clock.js';
import type { Model, RateLimit } from '../contracts/model.js';
import { hasSharedRateWindows, type SharedRateWindows } from '../contracts/rate-windows.js';
import { localWindow, type RateWindow } from '../providers/rate-limited-call.js';
import { sleepOn } from '../providers/rate-limiter.js';
import type { KernelDeps } from './kernel-deps.js';

export function rateWindowOf(model: Model, limit: RateLimit, deps: KernelDeps): RateWindow {
  if (limit.shared === true && hasSharedRateWindows(deps.store)) return storeWindow(deps.store, `${model.provider}/${model.modelId}`, limit, deps.clock);
  return localWindow(model, limit, deps.clock);
}

/** The store decides; this process sleeps (on the kernel's clock) for as long as it is told, then asks again. */
function storeWindow(store: SharedRateWindows, key: string, limit: RateLimit, clock: Clock): RateWindow {
  return {
    async acquire(tokens, signal, onWait) {
      for (;;) {
        if (signal.aborted) return undefined;
        const taken = await store.takeRate(key, limit, tokens);
        if ('id' in taken) return { settle: (used) => void (used === undefined ? undefined : store.settleRate(key, taken.id, used).catch(() => undefined)) };
        onWait(taken.waitMs, taken.reason);
        if (!(await sleepOn(clock, taken.waitMs, signal))) return undefined;
      }
    },
    pause: (waitMs) => void store.pauseRate(key, waitMs).catch(() => undefined),
  };
}
