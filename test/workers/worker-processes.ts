// Starts worker processes (test/workers/fixtures/worker-child.mjs) and reads what they left.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SliceReport } from 'dualloop';
import type { Place } from './worker-support.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const NODE = join(ROOT, 'node_modules/.bin/node');
const CHILD = fileURLToPath(new URL('./fixtures/worker-child.mjs', import.meta.url));

export interface WorkerProcess {
  readonly workerId: string;
  readonly process: ChildProcess;
  readonly exited: Promise<{ readonly code: number | null; readonly signal: NodeJS.Signals | null; readonly stderr: string }>;
  /** Resolves once the worker takes slices. */
  readonly ready: Promise<void>;
}

export function newWorkDir(): string {
  return mkdtempSync(join(tmpdir(), 'dualloop-workers-'));
}

export function startWorkerProcess(workerId: string, workDir: string, place: Place, env: Record<string, string> = {}): WorkerProcess {
  const child = spawn(NODE, [CHILD, workerId, workDir], {
    cwd: ROOT,
    env: { ...process.env, W_URL: place.connectionString, W_SCHEMA: place.schema, W_QUEUE_SCHEMA: place.queueSchema, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal, stderr })));
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      if (stdout.split('\n').includes('ready')) resolve();
    });
    void exited.then((exit) => reject(new Error(`worker ${workerId} exited (${exit.code ?? exit.signal}) before it was ready: ${exit.stderr}`)));
  });
  ready.catch(() => undefined);
  return { workerId, process: child, exited, ready };
}

export interface Execution {
  readonly runId: string;
  readonly toolCallId: string;
  readonly workerId: string;
  readonly pid: number;
}

export function jsonLines<T>(workDir: string, file: string): (T & { workerId: string; pid: number })[] {
  const path = join(workDir, file);
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .flatMap((line) => {
      try {
        return [JSON.parse(line) as T & { workerId: string; pid: number }];
      } catch {
        return []; // a line cut by a SIGKILL
      }
    });
}

export const executionsOf = (workDir: string) => jsonLines<Execution>(workDir, 'executions.jsonl');
export const slicesOf = (workDir: string) => jsonLines<SliceReport>(workDir, 'slices.jsonl');

/**
 * Tool calls executed more than once where an earlier execution was by a process that was not
 * killed: a recorded result run again. (A call cut by a SIGKILL between its execution and its
 * recording runs again by design: docs/scale-out.md, "what exactly once covers".)
 */
export function reExecutedRecordedCalls(executions: readonly Execution[], killedPids: ReadonlySet<number>): string[] {
  const byCall = new Map<string, Execution[]>();
  for (const execution of executions) {
    const key = `${execution.runId}/${execution.toolCallId}`;
    byCall.set(key, [...(byCall.get(key) ?? []), execution]);
  }
  return [...byCall.entries()].filter(([, list]) => list.slice(0, -1).some((execution) => !killedPids.has(execution.pid))).map(([key]) => key);
}
