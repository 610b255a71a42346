/**
 * The two processes of a throwaway PostgreSQL: `initdb` (once, to create the data directory) and
 * the `postgres` server itself, as `user` when this process is root (postgres-binaries.ts).
 *
 * Contract: every failure is a rejected promise whose message is one line saying why (a process
 * that cannot be spawned, exits early or never says it is ready) — never an unhandled `'error'`
 * event. A server still running when this process exits is sent a fast shutdown.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chownSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { firstLine, type ServerUser } from './postgres-binaries.js';

/** PostgreSQL's messages in English, whatever the machine's locale: readiness is read from them. */
const MESSAGES_LOCALE = 'C';
const READY = 'database system is ready to accept connections';
const READY_TIMEOUT_MS = 60_000;

export interface ServerProcessOptions {
  readonly postgres: string;
  readonly dataDirectory: string;
  readonly port: number;
  readonly flags: readonly string[];
  readonly user: ServerUser | undefined;
}

/** A started server: `stop()` asks for a fast shutdown (sessions terminated) and waits for its exit. */
export interface ServerProcess {
  stop(): Promise<void>;
}

function spawnAs(user: ServerUser | undefined, command: string, args: readonly string[], onLog: (line: string) => void): ChildProcess {
  const ids = user === undefined ? {} : { uid: user.uid, gid: user.gid };
  const child = spawn(command, args, { ...ids, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LC_MESSAGES: MESSAGES_LOCALE } });
  for (const stream of [child.stdout, child.stderr]) {
    if (stream === null) continue;
    createInterface({ input: stream, crlfDelay: Infinity }).on('line', (line) => {
      if (line.trim() !== '') onLog(line);
    });
  }
  return child;
}

/** The line of a log that says what went wrong: the last error-looking one, else the last one. */
export function reasonIn(log: readonly string[]): string {
  const errors = log.filter((line) => /\b(FATAL|PANIC|ERROR|error|cannot|could not)\b/.test(line));
  return firstLine(errors.at(-1) ?? log.at(-1) ?? '');
}

/** Creates `dataDirectory` (owned by `user`) with a superuser `superuser` whose password is `password`. */
export async function initialiseDataDirectory(options: { initdb: string; root: string; dataDirectory: string; superuser: string; password: string; user: ServerUser | undefined }): Promise<void> {
  const { user } = options;
  mkdirSync(options.dataDirectory, { recursive: true, mode: 0o700 });
  const passwordFile = join(options.root, 'password');
  writeFileSync(passwordFile, `${options.password}\n`, { mode: 0o600 });
  if (user !== undefined) for (const path of [options.dataDirectory, passwordFile]) chownSync(path, user.uid, user.gid);
  const log: string[] = [];
  const args = [`--pgdata=${options.dataDirectory}`, '--auth=password', `--username=${options.superuser}`, `--pwfile=${passwordFile}`, `--lc-messages=${MESSAGES_LOCALE}`];
  try {
    await new Promise<void>((resolve, reject) => {
      const child = spawnAs(user, options.initdb, args, (line) => log.push(line));
      child.on('error', (error) => reject(new Error(`initdb could not be started: ${firstLine(error)}`)));
      child.once('close', (code, signal) => {
        if (code === 0) resolve();
        else reject(new Error(`initdb failed (${code === null ? `signal ${String(signal)}` : `exit ${code}`}): ${reasonIn(log)}`));
      });
    });
  } finally {
    rmSync(passwordFile, { force: true });
  }
}

const running = new Set<ChildProcess>();
let exitHookInstalled = false;

/** Starts the server on `dataDirectory` and resolves once it accepts connections. */
export function startServerProcess(options: ServerProcessOptions): Promise<ServerProcess> {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', () => {
      for (const child of running) child.kill('SIGINT');
    });
  }
  return new Promise((resolve, reject) => {
    // The log until the server is ready: the reason of a failure to start is in it.
    const log: string[] = [];
    let settled = false;
    const child = spawnAs(options.user, options.postgres, ['-D', options.dataDirectory, '-p', String(options.port), ...options.flags], (line) => {
      if (settled) return;
      log.push(line);
      if (!line.includes(READY)) return;
      settled = true;
      clearTimeout(timer);
      resolve({ stop: () => stopServer(child) });
    });
    running.add(child);
    child.once('exit', () => running.delete(child));
    const fail = (reason: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(reason));
    };
    const timer = setTimeout(() => fail(`the server did not say it was ready within ${READY_TIMEOUT_MS / 1000} s: ${reasonIn(log)}`), READY_TIMEOUT_MS);
    child.on('error', (error) => fail(`the server could not be started: ${firstLine(error)}`));
    // 'close', not 'exit': its last log lines (the reason) are read by then.
    child.once('close', (code, signal) => fail(`the server exited before it was ready (${code === null ? `signal ${String(signal)}` : `exit ${code}`}): ${reasonIn(log)}`));
  });
}

function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGINT');
  });
}
