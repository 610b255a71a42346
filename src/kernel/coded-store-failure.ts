import type { CheckpointStore } from '../contracts/store.js';
import { describeError, isDualloopError, StoreError, type DualloopError } from '../errors.js';

/**
 * What `resume()` and `fork()` reject with when the store fails while they prepare a run. A store
 * written by hand may throw anything; the caller still gets a coded error (docs/errors.md): a
 * dualloop error passes unchanged, anything else becomes `StoreError` `store_failed`, naming the
 * store by its `kind` and keeping the original as `cause`.
 */
export function codedStoreFailure(error: unknown, store: CheckpointStore, runId: string, operation: string): DualloopError {
  if (isDualloopError(error)) return error;
  const kind = typeof store.kind === 'string' ? store.kind : 'custom';
  return new StoreError({ code: 'store_failed', path: `(${kind} store)`, runId, message: `${operation} run ${runId}: the ${kind} store failed: ${describeError(error)}`, cause: error });
}
