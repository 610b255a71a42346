/**
 * Why a store cannot be used: a file that is not a database (or a truncated or corrupt one), a
 * database written by another application or by a newer dualloop, or a write that SQLite refused.
 * Problems with one run's data that the kernel must refuse to resume (a corrupt checkpoint) are
 * `RunError`s instead, so that `kernel.resume` rejects with the run's own error code.
 */
export type StoreErrorCode =
  /** The file is not a SQLite database, or it is truncated or corrupt, or a stored row is not valid JSON. */
  | 'store_corrupt'
  /** A SQLite database that another application created. */
  | 'store_not_dualloop'
  /** A database whose schema a newer dualloop wrote; this one refuses to touch it. */
  | 'store_future_schema'
  /** Any other failure: disk full, read-only file, lock held past the busy timeout, a closed store. */
  | 'store_failed';

export class StoreError extends Error {
  readonly code: StoreErrorCode;
  /** The database file. */
  readonly path: string;
  /** The run the failed operation was about, when there was one. */
  readonly runId: string | undefined;

  constructor(options: { code: StoreErrorCode; path: string; runId?: string; message: string; cause?: unknown }) {
    super(options.message, { cause: options.cause });
    this.name = 'StoreError';
    this.code = options.code;
    this.path = options.path;
    this.runId = options.runId;
  }
}
