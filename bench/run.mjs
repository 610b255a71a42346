/**
 * dualloop beside the popular agent loops, one workload, one invocation (issue 8).
 *
 *   npm run bench                 # from the root: builds, installs bench deps if missing, runs all
 *   npm run bench -- --quick      # a fast pass (smaller counts), written to results/quick.tmp
 *   npm run bench -- --only=dualloop,plain-loop
 *
 * Every system runs in its own child process (Node with --expose-gc), one child per protocol;
 * figures are medians over the repetitions with min–max beside them. Writes results/latest.json.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { machineInfo, packageVersions } from './lib/environment.mjs';
import { buildSystemRows, checkpointFigure, markdownTable, overheadFigure, targetLines } from './lib/report.mjs';

const benchDir = new URL('./', import.meta.url);
const dualloopRoot = process.env.DUALLOOP_ROOT === undefined ? new URL('../', benchDir) : pathToFileURL(`${process.env.DUALLOOP_ROOT.replace(/\/$/, '')}/`);

/** In table order: the floor, XState alone, dualloop, then the peers from lightest to heaviest. */
const SYSTEMS = ['plain-loop', 'xstate-events', 'xstate-promise', 'dualloop', 'dualloop-sqlite', 'pi-agent-core', 'ai-sdk', 'openai-agents', 'langgraph'];

const FULL = {
  // The full protocol of issue 8: 2,000 sequential runs and 5 repetitions for every system.
  // (Budgets are finite: the config reaches each child process as JSON, where Infinity is null.)
  sequential: { runs: 2000, reps: 5, warmupRuns: 200, warmupMs: 2000, repBudgetMs: 1e9 },
  concurrent: { inFlight: 5000, reps: 5, minReps: 5, slowRepMs: 1e9, delayMs: 20, warmupRuns: 200, warmupMs: 1000 },
};
const QUICK = {
  sequential: { runs: 300, reps: 5, warmupRuns: 100, warmupMs: 1000, repBudgetMs: 1000 },
  concurrent: { inFlight: 500, reps: 5, minReps: 3, slowRepMs: 2000, delayMs: 20, warmupRuns: 50, warmupMs: 300 },
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
  for (const id of options.only ?? []) if (!SYSTEMS.includes(id)) throw new Error(`unknown system ${id} (known: ${SYSTEMS.join(', ')})`);
  return options;
}

function ensureInstalled() {
  if (existsSync(new URL('node_modules/', benchDir))) return;
  process.stderr.write('bench: installing the peers (npm ci --prefix bench)…\n');
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const installed = spawnSync(npm, ['ci', '--prefix', fileURLToPath(benchDir), '--no-audit', '--no-fund'], { stdio: 'inherit' });
  if (installed.status !== 0) throw new Error('npm ci --prefix bench failed');
}

function runChild(spec) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--expose-gc', fileURLToPath(new URL('child.mjs', benchDir)), JSON.stringify(spec)], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: process.env,
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

async function measureSystem(id, config) {
  const module = await import(new URL(`systems/${id}.mjs`, benchDir).href);
  const { label } = module.meta;
  const pending = module.pendingReason?.();
  if (pending !== undefined) return { id, label, status: 'pending', note: pending };
  try {
    const started = performance.now();
    const sequential = await runChild({ system: id, protocol: 'sequential', ...config.sequential });
    const concurrent = await runChild({ system: id, protocol: 'concurrent', ...config.concurrent });
    process.stderr.write(`bench: ${id} done in ${((performance.now() - started) / 1000).toFixed(0)} s\n`);
    return { id, label, status: 'ok', sequential, concurrent };
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
  ensureInstalled();

  const config = options.quick ? QUICK : FULL;
  const started = performance.now();
  // Other work on the machine moves every figure; the load averages say how quiet it was.
  const loadAtStart = os.loadavg();
  const measured = [];
  for (const id of options.only ?? SYSTEMS) measured.push(await measureSystem(id, config));
  const rows = buildSystemRows(measured);
  const checkpointing = checkpointFigure(rows);
  const overhead = overheadFigure(rows);
  const table = markdownTable(rows, config);
  const notes = targetLines(checkpointing, overhead);

  const results = {
    schema: 1,
    date: new Date().toISOString(),
    command: `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`,
    mode: options.quick ? 'quick' : 'full',
    durationSeconds: Math.round((performance.now() - started) / 1000),
    machine: { ...machineInfo(), loadAverage: { atStart: loadAtStart.map(round2), atEnd: os.loadavg().map(round2) } },
    versions: packageVersions(benchDir, dualloopRoot),
    config,
    systems: rows,
    checkpointing,
    overhead,
    table,
  };
  const out = options.out ?? fileURLToPath(new URL(options.quick ? 'results/quick.tmp' : 'results/latest.json', benchDir));
  mkdirSync(new URL('results/', benchDir), { recursive: true });
  writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);

  const { machine } = results;
  const load = `load average ${machine.loadAverage.atStart[0]} → ${machine.loadAverage.atEnd[0]}`;
  process.stdout.write(`\n${machine.cpuModel}, ${machine.cores} cores, ${machine.memoryGiB} GiB, Node ${machine.node}, ${results.mode} run, ${results.durationSeconds} s, ${load}\n\n`);
  process.stdout.write(`${table}\n\n${notes.join('\n')}\n\nwritten: ${out}\n`);
}

main().catch((error) => {
  process.stderr.write(`bench: ${error.message}\n`);
  process.exit(1);
});
