import { describeError, isDualloopErrorOf, StoreError } from '../../errors.js';

// SQLite result codes (primary codes; extended codes keep them in the low byte).
const SQLITE_CORRUPT = 11;
const SQLITE_NOTADB = 26;

/** What failed, for the message: the file, the operation and the run it was about. */
export interface FailureScope {
  readonly path: string;
  readonly operation: string;
  readonly runId?: string;
}

/**
 * Turns an error thrown by node:sqlite into a StoreError naming the file, the operation and the
 * run. A corrupt or truncated file gets `store_corrupt` and says so in plain words.
 */
export function describeSqliteFailure(error: unknown, scope: FailureScope): StoreError {
  if (isDualloopErrorOf(error, 'store')) return error;
  const errcode = typeof error === 'object' && error !== null ? (error as { errcode?: unknown }).errcode : undefined;
  const primary = typeof errcode === 'number' ? errcode & 0xff : undefined;
  const corrupt = primary === SQLITE_CORRUPT || primary === SQLITE_NOTADB;
  const about = scope.runId === undefined ? '' : ` for run ${scope.runId}`;
  const hint = corrupt ? ' — the database file is truncated or corrupt (restore it from a backup; dualloop will not start the run over)' : '';
  return new StoreError({
    code: corrupt ? 'store_corrupt' : 'store_failed',
    path: scope.path,
    ...(scope.runId === undefined ? {} : { runId: scope.runId }),
    message: `sqlite store ${scope.path}: ${scope.operation}${about} failed: ${describeError(error)}${hint}`,
    cause: error,
  });
}
