// What a test file needs to talk to the run's Postgres server (test/support/postgres-global-setup.ts).
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, inject } from 'vitest';
import { oneLineError } from './postgres-server.js';

/** The server's connection string (the throwaway server, or DATABASE_URL); throws the one line saying why when there is none. */
export function postgresUrl(): string {
  const url = inject('postgresUrl');
  if (url !== undefined) return url;
  throw oneLineError(inject('postgresUnavailable') ?? 'no PostgreSQL server was provided to the tests (test/support/postgres-global-setup.ts)');
}

/**
 * A fresh schema name per call, all dropped when the test file ends: each test gets an empty
 * store without a new database, and a shared DATABASE_URL is left as it was found.
 */
export function useSchemas(prefix = 't'): () => string {
  const made: string[] = [];
  afterAll(async () => {
    if (made.length === 0) return;
    const client = new pg.Client({ connectionString: postgresUrl() });
    await client.connect();
    try {
      for (const schema of made) await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    } finally {
      await client.end();
    }
  });
  return () => {
    const schema = `${prefix}_${randomBytes(6).toString('hex')}`;
    made.push(schema);
    return schema;
  };
}

/** Runs one statement on its own connection (for what a test plants or inspects behind the store's back). */
export async function sql<T extends Record<string, unknown> = Record<string, unknown>>(text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: postgresUrl() });
  await client.connect();
  try {
    return (await client.query(text, values)).rows as T[];
  } finally {
    await client.end();
  }
}
