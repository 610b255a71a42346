import { describeError, isDualloopErrorOf, StoreError } from '../../errors.js';

/** SQLSTATE of a unique violation: a run id or a row another writer took first. */
export const UNIQUE_VIOLATION = '23505';

export function sqlState(error: unknown): string | undefined {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' ? code : undefined;
}

/**
 * Turns an error of the `pg` driver (a refused connection, a server that went away, a statement
 * the server refused) into a StoreError naming the database, the operation and the run. The
 * connection string's password never appears: `where` is built without it.
 */
export function describePostgresFailure(error: unknown, scope: { readonly where: string; readonly operation: string; readonly runId?: string }): StoreError {
  if (isDualloopErrorOf(error, 'store')) return error;
  const about = scope.runId === undefined ? '' : ` for run ${scope.runId}`;
  const state = sqlState(error);
  return new StoreError({
    code: 'store_failed',
    path: scope.where,
    ...(scope.runId === undefined ? {} : { runId: scope.runId }),
    message: `postgres store ${scope.where}: ${scope.operation}${about} failed: ${describeError(error)}${state === undefined ? '' : ` (${state})`}`,
    cause: error,
  });
}

/** `postgres://host:port/database`, never the user's password; for messages and StoreError.path. */
export function describeTarget(connectionString: string | undefined, fallback: { host?: unknown; port?: unknown; database?: unknown }): string {
  if (connectionString !== undefined) {
    try {
      const url = new URL(connectionString);
      return `${url.protocol}//${url.host}${url.pathname}`;
    } catch {
      return 'postgres://(unparsable connection string)';
    }
  }
  const host = typeof fallback.host === 'string' ? fallback.host : 'localhost';
  const port = typeof fallback.port === 'number' || typeof fallback.port === 'string' ? `:${String(fallback.port)}` : '';
  const database = typeof fallback.database === 'string' ? `/${fallback.database}` : '';
  return `postgres://${host}${port}${database}`;
}
