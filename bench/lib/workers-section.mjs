/**
 * The workers figure: runs/s and turns/s with 1, 2 and 4 worker processes on a 50 ms scripted
 * model, beside one in-process kernel on the same store with as many runs in flight as one worker
 * and as four (bench/workers.mjs, one configuration per process, ADR/0205).
 */
import { medianRange, number } from './format.mjs';
import { summarize } from './stats.mjs';
import { TURNS } from './workload.mjs';

export async function measureWorkers(runChild, database, config) {
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
    process.stderr.write(`bench: workers, ${setup.label} done\n`);
  }
  return { config, rows };
}

const cell = (summary, digits = 0) => medianRange(summary, (value) => number(value, digits));

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
