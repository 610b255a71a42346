import type { Pool, PoolClient } from 'pg';
import { isDualloopErrorOf } from '../../errors.js';
import { describePostgresFailure } from './postgres-failure.js';
import type { ListenerClient } from './postgres-listener.js';
import type { PostgresConnection } from './postgres-options.js';
import { migratePostgres } from './postgres-schema.js';

/**
 * The Postgres store's connections: the pool its queries use (the one passed in, or its own
 * opened from the connection string) with the schema migrated before the first query, and the
 * dedicated connection its LISTEN needs. `pg` is loaded only here, when a store is made.
 */
export interface PostgresConnections {
  /** Resolves once connected and migrated; rejects with the StoreError every call would give. */
  readonly opened: Promise<Pool>;
  /** Opens the listener's connection: from the given pool, else a client of its own. */
  connectListener(): Promise<ListenerClient>;
}

/** The pool passed in (the store leaves it open on close()), or undefined when the store opens its own. */
export function givenPool(connection: PostgresConnection): Pool | undefined {
  return 'pool' in connection ? (connection.pool as unknown as Pool) : undefined;
}

export function openPostgresConnections(connection: PostgresConnection, settings: { readonly schema: string; readonly maxConnections: number }, where: string): PostgresConnections {
  const given = givenPool(connection);
  const connectionString = 'connectionString' in connection ? connection.connectionString : undefined;
  const opened: Promise<Pool> = (async () => {
    const pool = given ?? (await ownPool(connectionString!, settings.maxConnections));
    let client: PoolClient | undefined;
    try {
      client = await pool.connect();
      await migratePostgres(client, settings.schema, where);
      client.release();
      return pool;
    } catch (error) {
      client?.release();
      if (given === undefined) await pool.end().catch(() => undefined);
      throw isDualloopErrorOf(error, 'store') ? error : describePostgresFailure(error, { where, operation: 'opening the database' });
    }
  })();
  opened.catch(() => undefined);

  return {
    opened,
    async connectListener() {
      const pool = await opened;
      if (given !== undefined) return pool.connect();
      const { default: pg } = await import('pg');
      const client = new pg.Client({ connectionString, application_name: 'dualloop listener' });
      client.on('error', () => undefined);
      try {
        await client.connect();
      } catch (error) {
        await client.end().catch(() => undefined);
        throw error;
      }
      return client;
    },
  };
}

async function ownPool(connectionString: string, max: number): Promise<Pool> {
  const { default: pg } = await import('pg');
  const pool = new pg.Pool({ connectionString, max });
  // An idle connection the server dropped (a restart) must not crash the process; the next query
  // opens a new one, and a query on a dropped connection fails as a StoreError.
  pool.on('error', () => undefined);
  return pool;
}
