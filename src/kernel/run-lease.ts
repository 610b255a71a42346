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

/**
 * A lease whose holder was a process on this host that no longer exists (killed, crashed): it
 * cannot renew, so waiting for its expiry only delays the resume. Holders on other hosts, or live
 * processes, are never second-guessed.
 */
export function holderIsDeadHere(holder: string): boolean {
  const match = /^(.*)\/pid-(\d+)\/[^/]+$/.exec(holder);
  if (match === null || match[1] !== hostname()) return false;
  const pid = Number(match[2]);
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/**
 * Takes the run's lease, taking over at once from a holder that died on this host. The takeover
 * asks the store as of just after the dead lease's expiry, which the store's own compare-and-set
 * then grants to exactly one contender.
 */
export async function acquireRunLease(store: CheckpointStore, runId: string, holder: string, now: number): Promise<LeaseResult> {
  const first = await store.acquireLease(runId, holder, LEASE_TTL_MS, now);
  if (first.acquired || !holderIsDeadHere(first.holder)) return first;
  return store.acquireLease(runId, holder, LEASE_TTL_MS, Math.max(now, first.expiresAt + 1));
}

export function heldError(runId: string, refused: Extract<LeaseResult, { acquired: false }>, now: number): RunError {
  const seconds = Math.max(0, Math.ceil((refused.expiresAt - now) / 1000));
  return new RunError({
    code: 'run_held',
    runId,
    message: `run ${runId} is held by ${refused.holder} (lease expires in ${seconds} s); another process is running it`,
  });
}

export interface LeaseKeeper {
  /** Renews the run's lease until the returned function releases it; `onLost` stops the run. */
  keep(runId: string, onLost: (detail: string) => void): () => Promise<void>;
}

/**
 * Keeps the leases of a kernel's running runs alive, so that a second process cannot resume one
 * at the same time, and a dead holder blocks nobody for longer than the TTL. One timer per kernel
 * (not per run) renews them all every third of the TTL; it is unref'd, so it never keeps the
 * process alive, and stops when no run is left. A lost lease stops its run `error`.
 */
export function createLeaseKeeper(store: CheckpointStore, holder: string, clock: Clock): LeaseKeeper {
  const running = new Map<string, (detail: string) => void>();
  let timer: ReturnType<typeof setInterval> | undefined;
  const renew = async (runId: string, onLost: (detail: string) => void) => {
    try {
      const renewed = await store.acquireLease(runId, holder, LEASE_TTL_MS, clock.now());
      if (!renewed.acquired) onLost(`lease lost: run ${runId} is now held by ${renewed.holder}`);
    } catch (error) {
      onLost(`lease renewal failed: ${describeError(error)}`);
    }
  };
  return {
    keep(runId, onLost) {
      running.set(runId, onLost);
      if (timer === undefined) {
        timer = setInterval(() => {
          for (const [id, lost] of running) void renew(id, lost);
        }, LEASE_TTL_MS / 3);
        timer.unref();
      }
      return async () => {
        running.delete(runId);
        if (running.size === 0 && timer !== undefined) {
          clearInterval(timer);
          timer = undefined;
        }
        await store.releaseLease(runId, holder);
      };
    },
  };
}
