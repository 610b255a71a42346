// Runs test/durability/fixtures/crash-child.mjs and reads back what it left behind.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { fileURLToPath } from 'node:url';
import type { KernelEvent, WorkflowResult } from 'dualloop';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const NODE = join(ROOT, 'node_modules/.bin/node');
const CHILD = fileURLToPath(new URL('./fixtures/crash-child.mjs', import.meta.url));
export const RUN_ID = 'crash-run';

/** Where the child dies (test/durability/fixtures/crash-child.mjs explains each kind). */
export type KillPlan =
  | { readonly kind: 'model' | 'tool'; readonly occurrence: number; readonly delayUs: number }
  | { readonly kind: 'checkpoint'; readonly occurrence: number; readonly at: 'insert' | 'commit' | 'committed' }
  /** The test sends SIGKILL this long after the child reports that the run started. */
  | { readonly kind: 'time'; readonly afterMs: number };

export interface ChildExit {
  readonly pid: number;
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stderr: string;
}

export function assertBuilt(): void {
  if (!existsSync(join(ROOT, 'dist/src/checkpoint/sqlite/sqlite-store.js'))) {
    throw new Error('dist/ is missing or stale: the crash tests run the built package; run `npm run build` (npm test does)');
  }
}

export function newWorkDir(): string {
  return mkdtempSync(join(tmpdir(), 'dualloop-crash-'));
}

export interface Child {
  readonly process: ChildProcess;
  readonly exited: Promise<ChildExit>;
  /** Resolves when the child printed this line on stdout. */
  line(text: string): Promise<void>;
}

/** Which store the child keeps the run in, and how the test reads it back. */
export interface CrashStore {
  readonly name: string;
  /** What the child's environment adds for this work dir. */
  env(workDir: string): Record<string, string>;
  state(workDir: string): Promise<StoredState>;
}

export const sqliteCrashStore: CrashStore = { name: 'sqliteStore', env: () => ({}), state: async (workDir) => storedState(workDir) };

/** The fencing test's child (test/durability/fixtures/fenced-child.mjs). */
export const FENCED_CHILD = fileURLToPath(new URL('./fixtures/fenced-child.mjs', import.meta.url));

export function spawnChild(
  mode: 'start' | 'resume',
  workDir: string,
  options: { plan?: KillPlan; waitForGo?: boolean; store?: CrashStore; fixture?: string } = {},
): Child {
  const hookPlan = options.plan !== undefined && options.plan.kind !== 'time' ? [JSON.stringify(options.plan)] : [];
  const child = spawn(NODE, [options.fixture ?? CHILD, mode, workDir, ...hookPlan], {
    cwd: ROOT,
    env: { ...process.env, ...(options.waitForGo === true ? { DUALLOOP_WAIT_FOR_GO: '1' } : {}), ...(options.store?.env(workDir) ?? {}) },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const waiters: { text: string; resolve: () => void }[] = [];
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
    for (const waiter of waiters) if (stdout.split('\n').includes(waiter.text)) waiter.resolve();
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const exited = new Promise<ChildExit>((resolve) => child.on('exit', (code, signal) => resolve({ pid: child.pid ?? -1, code, signal, stderr })));
  if (options.plan?.kind === 'time') {
    const { afterMs } = options.plan;
    void new Promise<void>((resolve) => waiters.push({ text: 'started', resolve })).then(() => setTimeout(() => child.kill('SIGKILL'), afterMs));
  }
  return {
    process: child,
    exited,
    line: (text) =>
      new Promise<void>((resolve, reject) => {
        if (stdout.split('\n').includes(text)) resolve();
        else waiters.push({ text, resolve });
        void exited.then((exit) => reject(new Error(`child exited (${exit.code ?? exit.signal}) before printing "${text}": ${exit.stderr}`)));
      }),
  };
}

export type ChildOutcome = { readonly result: WorkflowResult } | { readonly error: { readonly code: string; readonly message: string } };

export function outcomeOf(workDir: string, pid: number): ChildOutcome {
  const file = readdirSync(workDir).find((name) => name === `result-${pid}.json`);
  if (file === undefined) throw new Error(`child ${pid} wrote no result`);
  return JSON.parse(readFileSync(join(workDir, file), 'utf8')) as ChildOutcome;
}

export function jsonLines<T>(workDir: string, file: string): (T & { pid: number })[] {
  const path = join(workDir, file);
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as T & { pid: number });
}

/** What the database holds, read through its own connection as a resuming process would. */
export interface StoredState {
  readonly events: readonly KernelEvent[];
  readonly toolCallIds: readonly string[];
  readonly checkpoint: { readonly sequence: number; readonly eventSeq: number; readonly modelCallIndex: number; readonly finishedTasks: readonly string[] } | undefined;
}

export function storedState(workDir: string): StoredState {
  const database = new DatabaseSync(join(workDir, 'runs.db'));
  try {
    const events = (database.prepare('SELECT body FROM events ORDER BY run, seq').all() as { body: string }[]).map((row) => JSON.parse(row.body) as KernelEvent);
    const toolCallIds = (database.prepare('SELECT tool_call_id FROM tool_results ORDER BY tool_call_id').all() as { tool_call_id: string }[]).map((row) => row.tool_call_id);
    const latest = database.prepare('SELECT body FROM checkpoints ORDER BY sequence DESC LIMIT 1').get() as { body: string } | undefined;
    const parsed = latest === undefined ? undefined : (JSON.parse(latest.body) as { sequence: number; eventSeq: number; progress: { modelCallIndex: number; results: { taskId: string }[] } });
    return {
      events,
      toolCallIds,
      checkpoint:
        parsed === undefined
          ? undefined
          : { sequence: parsed.sequence, eventSeq: parsed.eventSeq, modelCallIndex: parsed.progress.modelCallIndex, finishedTasks: parsed.progress.results.map((task) => task.taskId) },
    };
  } finally {
    database.close();
  }
}

const TIMING_KEYS = new Set(['at', 'runtimeMs', 'elapsedMs', 'durationMs', 'savedAt']);

/** The value without clock readings, which differ between an uninterrupted and a resumed run. */
export function withoutTimings(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutTimings);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).filter(([key]) => !TIMING_KEYS.has(key)).map(([key, item]) => [key, withoutTimings(item)]));
}

/** Events whose content is the same in every run of the script: what a resumed log must still hold. */
export function milestones(events: readonly KernelEvent[]): string[] {
  return events.flatMap((event) => {
    if (event.type === 'tool_execution_end') return [`${event.type}:${event.toolCallId}`];
    if (event.type === 'turn_end') return [`${event.type}:${event.taskId}:${event.turn}`];
    if (event.type === 'task_end') return [`${event.type}:${event.taskId}:${event.stop.reason}`];
    if (event.type === 'workflow_end') return [`${event.type}:${event.stop.reason}`];
    return [];
  });
}

/** mulberry32: a small seeded generator, so that the kill points are the same on every run. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4_294_967_296;
  };
}
