/**
 * Riding out a lost connection (ADR/0187): a statement that failed because the server went away
 * or is starting up again is tried again on a new connection, with backoff, until `reconnectMs`
 * after the first failure. A statement whose connection died while it ran may have committed: a
 * write that is tried again says so through `onRetry` (the run's writes turn a duplicate key on
 * such a retry into "it had committed"). Anything else fails at once, as before.
 */
import { sqlState } from './postgres-failure.js';

/** Node socket errors of a connection that was refused, cut or reset. */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNABORTED']);
/** SQLSTATEs of a server that is shutting down, restarting or not accepting connections yet. */
const SERVER_GONE = new Set(['57P01', '57P02', '57P03', '57P05']);

export const DEFAULT_RECONNECT_MS = 10_000;

/** True when `error` says the connection or the server went away, not that the statement was wrong. */
export function isConnectionLoss(error: unknown): boolean {
  const state = sqlState(error);
  if (state !== undefined && (SOCKET_CODES.has(state) || SERVER_GONE.has(state) || state.startsWith('08'))) return true;
  const message = error instanceof Error ? error.message : '';
  return /^Connection terminated|^Client has encountered a connection error|^Connection ended unexpectedly/.test(message);
}

export interface RetryOptions {
  readonly reconnectMs: number;
  /** Whether the store was closed meanwhile: stop trying. */
  readonly closed: () => boolean;
}

/** Failures that happen before the statement reached a server: trying again cannot run it twice. */
export function neverSent(error: unknown): boolean {
  const state = sqlState(error);
  return state === 'ECONNREFUSED' || state === '57P03';
}

/**
 * What a statement whose connection died while it ran may have done: `retry` (reads, and writes
 * that are the same when done twice), `fail` (a write that must not be done twice), or
 * `committed` — the rows to answer when a retry hits a duplicate key, proof that it had committed.
 */
export type UnknownOutcome = 'retry' | 'fail' | { readonly committed: readonly Record<string, unknown>[] };

/**
 * Runs `attempt` until it succeeds, fails otherwise than by a lost connection, or `reconnectMs`
 * ran out since the first failure.
 */
export async function withReconnect<T>(
  options: RetryOptions & { readonly unknownOutcome: UnknownOutcome; readonly committed: (rows: readonly Record<string, unknown>[]) => T; /** The statement may have committed already (its group's connection was lost). */ readonly maybeRan?: boolean },
  attempt: () => Promise<T>,
): Promise<T> {
  let started: number | undefined;
  let delay = 50;
  let maybeRan = options.maybeRan === true;
  for (;;) {
    try {
      return await attempt();
    } catch (error) {
      const { unknownOutcome } = options;
      if (maybeRan && typeof unknownOutcome === 'object' && sqlState(error) === '23505') return options.committed(unknownOutcome.committed);
      if (!isConnectionLoss(error) || options.closed()) throw error;
      if (!neverSent(error)) {
        if (unknownOutcome === 'fail') throw error;
        maybeRan = true;
      }
      started ??= Date.now();
      if (Date.now() - started + delay > options.reconnectMs) throw error;
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(delay * 2, 1_000);
    }
  }
}
