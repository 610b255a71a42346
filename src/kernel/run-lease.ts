import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import type { CheckpointStore, LeaseResult } from '../contracts/store.js';
import { RunError, describeError } from '../errors.js';
import type { Clock } from './clock.js';

/** How long a lease lives without renewal; renewed every third of it while the run is active. */
export const LEASE_TTL_MS = 30_000;

/** Who holds a run: host, process and kernel instance, so an operator can tell where it runs. */
export function createHolderId(): string {
  return `${hostname()}/pid-${process.pid}/${randomUUID().slice(0, 8)}`;
}

export function heldError(runId: string, refused: Extract<LeaseResult, { acquired: false }>, now: number): RunError {
  const seconds = Math.max(0, Math.ceil((refused.expiresAt - now) / 1000));
  return new RunError({
    code: 'run_held',
    runId,
    message: `run ${runId} is held by ${refused.holder} (lease expires in ${seconds} s); another process is running it`,
  });
}

/**
 * Keeps a run's lease alive while it runs, so that a second process cannot resume it at the same
 * time, and a dead holder blocks nobody for longer than the TTL. Renewal uses a real timer
 * (unref'd: it never keeps the process alive); a lost lease stops the run `error`.
 */
export function keepLease(store: CheckpointStore, runId: string, holder: string, clock: Clock, onLost: (detail: string) => void): () => Promise<void> {
  const renew = async () => {
    try {
      const renewed = await store.acquireLease(runId, holder, LEASE_TTL_MS, clock.now());
      if (!renewed.acquired) onLost(`lease lost: run ${runId} is now held by ${renewed.holder}`);
    } catch (error) {
      onLost(`lease renewal failed: ${describeError(error)}`);
    }
  };
  const timer = setInterval(() => void renew(), LEASE_TTL_MS / 3);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await store.releaseLease(runId, holder);
  };
}
