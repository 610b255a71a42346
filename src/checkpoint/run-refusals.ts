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
