import { RunError } from '../errors.js';

// The RunErrors every store throws for a write it refuses (ADR/0024); `where` names the store.

export function runNotFound(runId: string, where: string, operation: string): RunError {
  return new RunError({ code: 'run_not_found', runId, message: `run ${runId} does not exist in ${where} (${operation})` });
}

export function runExists(runId: string, where: string): RunError {
  return new RunError({ code: 'run_exists', runId, message: `run ${runId} already exists in ${where}` });
}

export function eventOutOfOrder(runId: string, seq: number, lastSeq: number): RunError {
  return new RunError({
    code: 'event_out_of_order',
    runId,
    message: `run ${runId}: event seq ${seq} is not after the log's last seq ${lastSeq}; the event log is append-only`,
  });
}

export function checkpointOutOfOrder(runId: string, detail: string): RunError {
  return new RunError({ code: 'checkpoint_out_of_order', runId, message: `run ${runId}: ${detail}; the checkpoint history is append-only` });
}

/** An approval answered a second time (`approveRun`): an approval is answered once. */
export function approvalAnswered(runId: string, approvalId: string): RunError {
  return new RunError({ code: 'approval_answered', runId, message: `run ${runId}: approval ${approvalId} was already answered; an approval is answered once` });
}

/** A fenced write after the run's lease passed to a newer holder, or expired (ADR/0180). */
export function leaseLost(runId: string, detail: string): RunError {
  return new RunError({ code: 'lease_lost', runId, message: `run ${runId}: lease_lost: ${detail}; the write was refused` });
}

/** Why a write fenced with `token` is refused, or nothing: `lease` is the run's lease as stored, `now` the store's clock. */
export function fenceRefusal(token: number, lease: { readonly token: number; readonly expiresAt: number } | undefined, now: number): string | undefined {
  if (lease === undefined || lease.token !== token) return `a newer lease (token ${lease?.token ?? 'none'}) replaced token ${token}`;
  if (lease.expiresAt <= now) return `the lease of token ${token} expired`;
  return undefined;
}
