import type { Pool } from 'pg';
import { ConfigError } from '../../errors.js';
import { DEFAULT_SAFETY_POLL_MS } from './postgres-listener.js';
import { DEFAULT_RECONNECT_MS } from './postgres-reconnect.js';

/**
 * A `pg.Pool` (what the store uses of one), typed structurally so that dualloop's public types do
 * not require `@types/pg`, which a consumer may not have. Pass the pool of the `pg` package.
 */
export interface PostgresPool {
  connect(): Promise<unknown>;
  query(...args: never[]): unknown;
  end(): Promise<void>;
}

export type PostgresConnection = { readonly connectionString: string } | { readonly pool: PostgresPool };

// Checked when dualloop compiles: pg's own Pool stays assignable to the structural one.
type Fits<Given extends PostgresPool> = Given;
type PgPoolFits = Fits<Pool>;

export interface PostgresStoreOptions {
  /** The schema the store's tables live in (default `dualloop`); created and migrated by the store. */
  readonly schema?: string;
  /** Connections of the pool the store opens from a connection string (default 10). */
  readonly maxConnections?: number;
  /**
   * How often watched runs and followed event logs are also read without a notification (default
   * 5 000 ms): covers a notification lost while the LISTEN connection was being opened again.
   */
  readonly safetyPollMs?: number;
  /**
   * How long an operation waits for a server that went away (a restart, a failover) before it
   * fails as a StoreError (default 10 000 ms; 0 fails at once). ADR/0187.
   */
  readonly reconnectMs?: number;
  /**
   * Commit the writes of runs that arrive together in one transaction (default true): with many
   * runs in flight, one WAL flush carries many turns. `false` commits every write on its own.
   * ADR/0490.
   */
  readonly groupCommit?: boolean;
}

const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/** Checks `postgresStore`'s arguments before any connection: one ConfigError naming every bad field. */
export function validatePostgresOptions(connection: PostgresConnection, options: PostgresStoreOptions): { schema: string; maxConnections: number; safetyPollMs: number; reconnectMs: number; groupCommit: boolean } {
  const issues: { path: string; message: string }[] = [];
  const value = (typeof connection === 'object' && connection !== null ? connection : {}) as { connectionString?: unknown; pool?: unknown };
  const hasString = typeof value.connectionString === 'string' && value.connectionString.trim() !== '';
  const hasPool = typeof value.pool === 'object' && value.pool !== null && typeof (value.pool as { query?: unknown }).query === 'function';
  if (!hasPool && !hasString && 'connectionString' in value) issues.push({ path: 'connectionString', message: missingConnectionString(value.connectionString) });
  else if (hasString === hasPool) issues.push({ path: 'connection', message: 'give exactly one of connectionString (a postgres:// URL) or pool (a pg.Pool)' });
  // A URL of another database is refused here, not at the first write; only its scheme is named (the rest may hold a password).
  const scheme = hasString ? /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(value.connectionString as string)?.[1] : undefined;
  if (scheme !== undefined && !/^postgres(ql)?$/i.test(scheme)) issues.push({ path: 'connectionString', message: `must be a postgres:// or postgresql:// URL, not ${scheme}://` });
  const schema = options.schema ?? 'dualloop';
  if (typeof schema !== 'string' || !SCHEMA_NAME.test(schema)) issues.push({ path: 'schema', message: 'must be 1–63 letters, digits or "_", not starting with a digit' });
  const maxConnections = options.maxConnections ?? 10;
  if (!Number.isInteger(maxConnections) || maxConnections < 1) issues.push({ path: 'maxConnections', message: 'must be a positive integer' });
  const safetyPollMs = options.safetyPollMs ?? DEFAULT_SAFETY_POLL_MS;
  if (!Number.isInteger(safetyPollMs) || safetyPollMs < 1 || safetyPollMs > 2_147_483_647) issues.push({ path: 'safetyPollMs', message: 'must be a positive integer of milliseconds (at most 2147483647)' });
  const reconnectMs = options.reconnectMs ?? DEFAULT_RECONNECT_MS;
  if (!Number.isInteger(reconnectMs) || reconnectMs < 0) issues.push({ path: 'reconnectMs', message: 'must be a non-negative integer of milliseconds' });
  const groupCommit = options.groupCommit ?? true;
  if (typeof groupCommit !== 'boolean') issues.push({ path: 'groupCommit', message: 'must be true or false' });
  if (issues.length > 0) throw new ConfigError({ message: 'Invalid postgresStore options', issues });
  return { schema, maxConnections, safetyPollMs, reconnectMs, groupCommit };
}

/**
 * `{ connectionString: process.env.DATABASE_URL }` with the variable unset is the usual way to get
 * here: the message names the variable people keep the URL in, so that the fix is one step away.
 */
function missingConnectionString(given: unknown): string {
  const got = given === undefined ? 'undefined' : typeof given === 'string' ? 'an empty string' : typeof given;
  return `missing (got ${got}): give a postgres:// URL; read from the environment (process.env.DATABASE_URL), check that DATABASE_URL is set`;
}
