/**
 * The Postgres and workers figures (issues 18 and 19), selectable apart from the main table
 * (`--only=postgres,workers`; in the full run, not in --quick):
 *
 * - postgres: checkpointed turns per second on the bench workload for memoryStore, sqliteStore
 *   and postgresStore (durable server settings), runs one after another and 50 runs at a time.
 *   Goal: Postgres ≥ 1,000 checkpointed turns/s on a 2-core machine with a local server.
 * - workers: runs/s and turns/s with 1, 2 and 4 worker processes on a 50 ms scripted model, beside
 *   one in-process kernel on the same store with as many runs in flight as one worker and as four.
 */
import { summarize } from './stats.mjs';
import { TURNS } from './workload.mjs';

export const SUITES = ['postgres', 'workers'];

export const SUITE_CONFIG = {
  postgres: {
    sequential: { runs: 200, reps: 3, warmupRuns: 20, warmupMs: 500, repBudgetMs: 20_000 },
    parallel: { inFlight: 50, rounds: 4, reps: 3, warmupRuns: 20 },
    goalTurnsPerSecond: 1000,
  },
  workers: { runs: 100, concurrency: 10, delayMs: 50, workerCounts: [1, 2, 4], reps: 2 },
};

const STORES = [
  { id: 'dualloop', label: 'memoryStore' },
  { id: 'dualloop-sqlite', label: 'sqliteStore (file, WAL)' },
  { id: 'dualloop-postgres', label: 'postgresStore' },
];

export async function postgresSuite(runChild, database) {
  const config = SUITE_CONFIG.postgres;
  const rows = [];
  for (const { id, label } of STORES) {
    const env = id === 'dualloop-postgres' ? { BENCH_DATABASE_URL: database.url } : {};
    const schema = () => ({ ...env, ...(id === 'dualloop-postgres' ? { BENCH_SCHEMA: database.schema('bench_store') } : {}) });
    const sequential = await runChild({ system: id, protocol: 'sequential', ...config.sequential }, 'child.mjs', schema());
    const parallel = await runChild({ system: id, protocol: 'parallel', ...config.parallel }, 'child.mjs', schema());
    rows.push({
      id,
      label,
      sequentialTurnsPerSecond: summarize(sequential.usPerTurn.map((us) => 1e6 / us)),
      sequentialCpuUsPerTurn: summarize(sequential.cpuUsPerTurn),
      parallelTurnsPerSecond: summarize(parallel.turnsPerSecond),
      parallelCpuUsPerTurn: summarize(parallel.cpuUsPerTurn),
      runsPerRep: { sequential: sequential.runsPerRep, parallel: parallel.runsPerRep },
    });
    process.stderr.write(`bench: postgres suite, ${label} done\n`);
  }
  const postgres = rows.find((row) => row.id === 'dualloop-postgres');
  const goal = config.goalTurnsPerSecond;
  return {
    config,
    server: database.description,
    rows,
    goal: { turnsPerSecond: goal, sequentialMet: postgres.sequentialTurnsPerSecond.median >= goal, parallelMet: postgres.parallelTurnsPerSecond.median >= goal },
  };
}

export async function workersSuite(runChild, database) {
  const config = SUITE_CONFIG.workers;
  const { runs, concurrency, delayMs } = config;
  const setups = [
    { label: `in-process kernel, ${concurrency} runs at a time`, mode: 'kernel', workers: 0, concurrency },
    { label: `in-process kernel, ${concurrency * 4} runs at a time`, mode: 'kernel', workers: 0, concurrency: concurrency * 4 },
    ...config.workerCounts.map((workers) => ({ label: `${workers} worker process${workers === 1 ? '' : 'es'} × ${concurrency} slots`, mode: 'workers', workers, concurrency })),
  ];
  const rows = [];
  for (const setup of setups) {
    const samples = [];
    for (let rep = 0; rep < config.reps; rep += 1) {
      const spec = { ...setup, runs, delayMs, url: database.url, schema: database.schema('bench_runs'), queueSchema: database.schema('bench_queue') };
      samples.push(await runChild(spec, 'workers.mjs'));
    }
    const inFlight = setup.mode === 'kernel' ? setup.concurrency : setup.workers * setup.concurrency;
    rows.push({
      ...setup,
      inFlight,
      idealRunsPerSecond: inFlight / ((TURNS * delayMs) / 1000),
      runsPerSecond: summarize(samples.map((sample) => sample.runsPerSecond)),
      turnsPerSecond: summarize(samples.map((sample) => sample.turnsPerSecond)),
      ...(setup.mode === 'workers' ? { submitMsPerRun: summarize(samples.map((sample) => sample.submitMs / runs)) } : {}),
    });
    process.stderr.write(`bench: workers suite, ${setup.label} done\n`);
  }
  return { config, server: database.description, rows };
}

const number = (value, digits = 0) => value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const cell = (summary, digits = 0) => (summary === undefined ? '—' : `${number(summary.median, digits)} (${number(summary.min, digits)}–${number(summary.max, digits)})`);

export function postgresMarkdown(figure) {
  const { sequential, parallel } = figure.config;
  const lines = [
    `| store | checkpointed turns/s, runs one after another | CPU µs/turn (bench process) | checkpointed turns/s, ${parallel.inFlight} runs at a time | CPU µs/turn (bench process) |`,
    '|---|---|---|---|---|',
    ...figure.rows.map((row) => `| ${row.label} | ${cell(row.sequentialTurnsPerSecond)} | ${cell(row.sequentialCpuUsPerTurn)} | ${cell(row.parallelTurnsPerSecond)} | ${cell(row.parallelCpuUsPerTurn)} |`),
  ];
  const server = figure.server;
  lines.push(
    '',
    `${sequential.runs} sequential runs × ${sequential.reps} reps; ${parallel.rounds} rounds of ${parallel.inFlight} runs × ${parallel.reps} reps; 10 turns a run, a checkpoint after each. ` +
      `Server: ${server.server}, ${server.version}, fsync ${server.fsync}, synchronous_commit ${server.synchronousCommit}. ` +
      `Goal ≥ ${number(figure.goal.turnsPerSecond)} turns/s for Postgres: one after another ${figure.goal.sequentialMet ? 'met' : 'not met'}, ${parallel.inFlight} at a time ${figure.goal.parallelMet ? 'met' : 'not met'}.`,
  );
  return lines.join('\n');
}

export function workersMarkdown(figure) {
  const { runs, delayMs } = figure.config;
  const kernelAt = (inFlight) => figure.rows.find((row) => row.mode === 'kernel' && row.inFlight === inFlight);
  const lines = [
    `| ${runs} runs × 10 turns, ${delayMs} ms model, postgresStore | runs in flight | runs/s | turns/s | ideal runs/s | × in-process kernel, ${figure.rows[0].inFlight} in flight | submitRun ms/run |`,
    '|---|---|---|---|---|---|---|',
  ];
  const reference = kernelAt(figure.rows[0].inFlight);
  for (const row of figure.rows) {
    const versus = reference === undefined ? '—' : `${number(row.runsPerSecond.median / reference.runsPerSecond.median, 2)}×`;
    lines.push(`| ${row.label} | ${row.inFlight} | ${cell(row.runsPerSecond, 1)} | ${cell(row.turnsPerSecond)} | ${number(row.idealRunsPerSecond, 0)} | ${versus} | ${row.submitMsPerRun === undefined ? '—' : cell(row.submitMsPerRun)} |`);
  }
  return lines.join('\n');
}
