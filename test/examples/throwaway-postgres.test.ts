import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import pg from 'pg';
import { afterEach, expect, it, vi } from 'vitest';
import { binariesAt, packagedBinaries } from '../../examples/support/postgres-binaries.js';
import { startThrowawayPostgres, ThrowawayPostgresError, type ThrowawayPostgres } from '../../examples/support/throwaway-postgres.js';
import { startTestPostgres } from '../support/postgres-server.js';

/*
 * The throwaway PostgreSQL of the tests, the bench and the workers demo, started from binaries
 * under a private (0700) directory, as in a clone under `mktemp -d`: as root the server runs as
 * the `postgres` user, which cannot enter that directory, so it must get binaries it can reach.
 * Where the server cannot start, the error is one line saying why, and nothing is left behind.
 */

const privateDirectories: string[] = [];
let server: ThrowawayPostgres | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
  vi.unstubAllEnvs();
  for (const directory of privateDirectories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

/** A fresh 0700 directory, as `mktemp -d` makes. */
function privateDirectory(): string {
  const directory = mkdtempSync(join(tmpdir(), 'dualloop-private-'));
  chmodSync(directory, 0o700);
  privateDirectories.push(directory);
  return directory;
}

/** A `native/` folder whose two server binaries (the cluster's creator and the server) are the given shell scripts. */
function fakeBinaries(scripts: { creator: string; server: string }): string {
  const native = join(privateDirectory(), 'native');
  const binaries = binariesAt(native);
  mkdirSync(dirname(binaries.postgres), { recursive: true });
  writeFileSync(binaries.initdb, `#!/bin/sh\n${scripts.creator}\n`, { mode: 0o755 });
  writeFileSync(binaries.postgres, `#!/bin/sh\n${scripts.server}\n`, { mode: 0o755 });
  return native;
}

const VERSION = 'if [ "$1" = "--version" ]; then echo "postgres (PostgreSQL) 18.4"; exit 0; fi';

/** Points the system's temporary folder (where the server's directory is made) at a fresh, empty, reachable one. */
function freshTemporaryFolder(): string {
  const folder = privateDirectory();
  chmodSync(folder, 0o755);
  vi.stubEnv('TMPDIR', folder);
  return folder;
}

it('starts from binaries under a 0700 directory, answers as a server, restarts on its data and removes its directory when stopped', async () => {
  const native = join(privateDirectory(), 'native');
  symlinkSync((await packagedBinaries()).directory, native);

  server = await startThrowawayPostgres({ binaries: native });
  const query = async (text: string) => {
    const client = new pg.Client({ connectionString: server!.url });
    await client.connect();
    try {
      return (await client.query(text)).rows;
    } finally {
      await client.end();
    }
  };
  await query('CREATE TABLE kept (value int); INSERT INTO kept VALUES (42)');
  await server.halt();
  await server.restart();
  expect(await query('SELECT value FROM kept')).toEqual([{ value: 42 }]);

  const directory = server.directory;
  await server.stop();
  server = undefined;
  expect(existsSync(directory)).toBe(false);
}, 60_000);

it('binaries that are not there: one line naming the missing binary', async () => {
  const empty = privateDirectory();
  const failure = await startThrowawayPostgres({ binaries: empty }).catch((error: unknown) => error);
  expect(failure).toBeInstanceOf(ThrowawayPostgresError);
  expect((failure as Error).message).toBe(`PostgreSQL could not start: no PostgreSQL server binary at ${join(empty, 'bin', 'postgres')}`);
});

it('creating the cluster fails: one line with its exit code and its error, and the server directory is removed', async () => {
  const native = fakeBinaries({ creator: 'echo "error: the disk is full" >&2; exit 3', server: VERSION });
  const temporary = freshTemporaryFolder();
  const failure = (await startThrowawayPostgres({ binaries: native }).catch((error: unknown) => error)) as Error;
  expect(failure.message).toBe(`PostgreSQL could not start: ${basename(binariesAt(native).initdb)} failed (exit 3): error: the disk is full`);
  expect(readdirSync(temporary)).toEqual([]);
});

it('the server exits before it is ready: one line with the reason it logged', async () => {
  const native = fakeBinaries({
    creator: 'exit 0',
    server: `${VERSION}\necho 'LOG:  starting PostgreSQL' >&2\necho 'FATAL:  could not create lock file "postmaster.pid": Permission denied' >&2\nexit 1`,
  });
  const temporary = freshTemporaryFolder();
  const failure = (await startThrowawayPostgres({ binaries: native }).catch((error: unknown) => error)) as Error;
  expect(readdirSync(temporary)).toEqual([]);
  expect(failure.message).toBe('PostgreSQL could not start: the server exited before it was ready (exit 1): FATAL:  could not create lock file "postmaster.pid": Permission denied');
});

it('the tests’ setup, when the throwaway server cannot start: one line, no stack, saying how to use a server of your own', async () => {
  vi.stubEnv('DATABASE_URL', '');
  const empty = privateDirectory();
  const failure = (await startTestPostgres({ binaries: empty }).catch((error: unknown) => error)) as Error;
  expect(failure.message).toMatch(/^PostgreSQL could not start: no PostgreSQL server binary at .*; to run the tests against a PostgreSQL server of yours instead: DATABASE_URL=postgres:\/\/user:password@host:5432\/database npm test$/);
  expect(failure.stack).toBe(`Error: ${failure.message}`);
});

it('a temporary folder the server’s user cannot enter: as root, one line saying so and what to do; otherwise the server starts', async () => {
  const temporary = privateDirectory();
  vi.stubEnv('TMPDIR', temporary);
  let failure: string | undefined;
  try {
    server = await startThrowawayPostgres();
  } catch (error) {
    failure = (error as Error).message;
  }
  if (process.getuid?.() === 0) {
    expect(failure).toMatch(/^PostgreSQL could not start: the "postgres" user cannot enter (\S+): point TMPDIR at a folder it can reach$/);
    expect(failure).toContain(`cannot enter ${join(temporary, 'dualloop-pg-')}`);
    expect(readdirSync(temporary)).toEqual([]);
  } else {
    expect(failure).toBeUndefined();
    expect(server!.directory.startsWith(temporary)).toBe(true);
  }
}, 60_000);
