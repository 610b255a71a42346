import { hasControlChannel, type ControlCommand } from '../contracts/control.js';
import type { CheckpointStore } from '../contracts/store.js';
import type { RunFence } from './fenced-store.js';

/** How often a run looks for commands when its store cannot notify (SQLite): well within 1 s. */
export const CONTROL_POLL_MS = 250;

/**
 * Hands a running run the commands other processes send it through the store (ADR/0184): at
 * once when the store notifies, else by a cheap poll; each command once, in order, taken under
 * the run's lease. A store that notifies (`watchControls`) also owns what covers a lost
 * notification — Postgres reconnects its listener, catches up and keeps a slow safety timer
 * (ADR/0186) — so the kernel does not poll it. Returns the function that stops watching. Stores
 * without a control channel (memory) are not watched.
 */
export function watchRunControls(store: CheckpointStore, runId: string, fence: RunFence, apply: (command: ControlCommand) => void): RunControlWatch {
  if (!hasControlChannel(store)) return { stop: () => undefined, first: Promise.resolve() };
  let stopped = false;
  let busy = false;
  let again = false;
  const take = async (): Promise<void> => {
    if (stopped || fence.lost || fence.token === undefined) return;
    if (busy) {
      again = true;
      return;
    }
    busy = true;
    try {
      const commands = await store.takeControls(runId, fence.token);
      for (const command of commands) if (!stopped) apply(command);
    } catch {
      // A failing store is the run's writes' to report; the next poll tries again.
    } finally {
      busy = false;
    }
    if (again) {
      again = false;
      await take();
    }
  };
  const unsubscribe = store.watchControls?.(runId, () => void take());
  const timer = unsubscribe === undefined ? setInterval(() => void take(), CONTROL_POLL_MS) : undefined;
  timer?.unref();
  return {
    first: take(),
    stop: () => {
      stopped = true;
      if (timer !== undefined) clearInterval(timer);
      unsubscribe?.();
    },
  };
}

export interface RunControlWatch {
  /** Stops watching. */
  stop(): void;
  /**
   * The first look, done: commands sent while the run was parked or crashed are applied. A resume
   * starts its machines after it, so such a steer reaches the first turn (ADR/0429).
   */
  readonly first: Promise<void>;
}
