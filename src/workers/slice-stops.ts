/**
 * Which stored stops a worker's slice continues (ADR/0203, ADR/0321). A slice resumes a run that
 * crashed (no result), a parked run (`awaiting_approval`, after its approval), and a run that
 * ended `error` because the store failed under it (`checkpoint_failed`, `store_call_failed`: the
 * database was down for longer than `reconnectMs`) — what a crash would have left, recovered the
 * same way. Any other stop is the run's own end: a stray or duplicate slice leaves it as it is.
 */
import type { StopCondition } from '../contracts/stop.js';

const STORE_FAILURES: ReadonlySet<string> = new Set(['checkpoint_failed', 'store_call_failed']);

/** The run ended `error` because its store failed: a worker retries its slice as after a crash. */
export function endedByTheStore(stop: StopCondition): boolean {
  return stop.reason === 'error' && STORE_FAILURES.has(stop.code);
}

/** A slice may continue a run whose stored result has this stop. */
export function sliceContinues(stop: StopCondition): boolean {
  return stop.reason === 'awaiting_approval' || endedByTheStore(stop);
}
