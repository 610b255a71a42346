import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import type { CheckpointStore, LeaseResult } from '../contracts/store.js';
import { RunError, describeError } from '../errors.js';
import type { RunFence } from './fenced-store.js';

/** How long a lease lives without renewal by default (`leaseMs`); renewed every third of it while the run is active. */
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
 * Takes the run's lease, taking over at once from a holder that died on this host: the store
 * grants the takeover only while that holder still holds the lease, so exactly one contender
 * gets it. Expiry is the store's to judge (ADR/0182).
 */
export async function acquireRunLease(store: CheckpointStore, runId: string, holder: string, ttlMs: number): Promise<LeaseResult> {
  const first = await store.acquireLease(runId, holder, ttlMs);
  if (first.acquired || !holderIsDeadHere(first.holder)) return first;
  return store.acquireLease(runId, holder, ttlMs, { takeOverFrom: first.holder });
}

export function heldError(runId: string, refused: Extract<LeaseResult, { acquired: false }>): RunError {
  // The expiry is on the store's clock; this host's tells roughly how long is left.
  const seconds = Math.max(0, Math.ceil((refused.expiresAt - Date.now()) / 1000));
  return new RunError({
    code: 'run_held',
    runId,
    message: `run ${runId} is held by ${refused.holder} (lease expires in ${seconds} s); another process is running it`,
  });
}

export interface LeaseKeeper {
  /** Renews the run's lease until the returned function releases it; `onLost` stops the run. */
  keep(runId: string, fence: RunFence, onLost: (detail: string) => void): () => Promise<void>;
  /**
   * Resolves when this process surely still holds the run's lease; rejects (and `onLost` stops
   * the run) when it does not, or when the store cannot say. Asked before a tool's side effect
   * (ADR/0320): without a round trip while the last confirmation is younger than half the lease,
   * else by renewing it, so that a process that was paused past its lease (GC, SIGSTOP, a frozen
   * VM) learns it lost the run before it runs a tool that the run's new holder may have run.
   */
  confirm(fence: RunFence, onLost: (detail: string) => void): Promise<void>;
}

/**
 * Keeps the leases of a kernel's running runs alive, so that a second process cannot resume one
 * at the same time, and a dead holder blocks nobody for longer than the TTL. One timer per kernel
 * (not per run) renews them all every third of the TTL; it is unref'd, so it never keeps the
 * process alive, and stops when no run is left. A renewal that is refused, or that does not keep
 * the run's fencing token (another holder had it meanwhile), loses the lease: the run stops
 * `error` / `lease_lost` and writes nothing more (ADR/0180).
 */
export function createLeaseKeeper(store: CheckpointStore, holder: string, ttlMs: number): LeaseKeeper {
  const running = new Map<string, { fence: RunFence; lost: (detail: string) => void }>();
  /** Renewals in flight by run: concurrent confirmations share one round trip. */
  const renewing = new Map<RunFence, Promise<unknown>>();
  let timer: ReturnType<typeof setInterval> | undefined;
  /** Renews the lease: resolves nothing while this process still holds it under the fence's token, else why not. */
  const renewOnce = async (fence: RunFence, onLost: (detail: string) => void): Promise<unknown> => {
    const { runId } = fence;
    if (fence.lost) return fence.refusal();
    if (fence.token === undefined) return undefined;
    const askedAt = performance.now();
    try {
      const renewed = await store.acquireLease(runId, holder, ttlMs);
      if (renewed.acquired && renewed.token === fence.token) {
        fence.confirmedAt = Math.max(fence.confirmedAt, askedAt);
        return undefined;
      }
      if (renewed.acquired) await store.releaseLease(runId, holder);
      if (fence.lost) return fence.refusal();
      fence.lost = true;
      onLost(`lease_lost: run ${runId} ${renewed.acquired ? `was held by another process meanwhile (token ${fence.token} → ${renewed.token})` : `is now held by ${renewed.holder}`}`);
      return fence.refusal();
    } catch (error) {
      onLost(`lease renewal failed: ${describeError(error)}`);
      return error;
    }
  };
  const renew = (fence: RunFence, onLost: (detail: string) => void): Promise<unknown> => {
    let pending = renewing.get(fence);
    if (pending === undefined) {
      pending = renewOnce(fence, onLost).finally(() => renewing.delete(fence));
      renewing.set(fence, pending);
    }
    return pending;
  };
  return {
    keep(runId, fence, onLost) {
      running.set(runId, { fence, lost: onLost });
      if (timer === undefined) {
        timer = setInterval(() => {
          for (const entry of running.values()) void renew(entry.fence, entry.lost);
        }, ttlMs / 3);
        timer.unref();
      }
      return async () => {
        running.delete(runId);
        if (running.size === 0 && timer !== undefined) {
          clearInterval(timer);
          timer = undefined;
        }
        if (!fence.lost || fence.suspended) await store.releaseLease(runId, holder);
      };
    },
    async confirm(fence, onLost) {
      // The local clock only decides whether to ask: the store's clock judges expiry (ADR/0182).
      if (!fence.lost && performance.now() - fence.confirmedAt < ttlMs / 2) return;
      const failure = await renew(fence, onLost);
      if (failure !== undefined) throw failure;
      // A write refused meanwhile (the lease had run out before the renewal took it again) still ends the run.
      if (fence.lost) throw fence.refusal();
    },
  };
}
