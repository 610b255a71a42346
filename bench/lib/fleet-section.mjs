/**
 * The fleet figure (ADR/0446): bench/fleet.mjs in its own process, on fresh schemas of the server
 * run.mjs started, and its steps as a markdown table.
 */
import { number } from './format.mjs';

export async function measureFleet(runChild, database, config) {
  const spec = { ...config, url: database.url, schema: database.schema('bench_fleet'), queueSchema: database.schema('bench_fleet_queue') };
  try {
    const { url: _url, ...result } = await runChild(spec, 'fleet.mjs');
    return { status: 'ok', ...result };
  } catch (error) {
    return { status: 'failed', note: error.message.slice(0, 300) };
  }
}

export function fleetMarkdown(fleet) {
  if (fleet.status !== 'ok') return `Fleet: ${fleet.status}: ${fleet.note}`;
  const lines = ['| runs in flight | checkpointed turns/s | ideal | of ideal | worker CPU µs/turn | worker RSS MiB | ramp s | held |', '|---|---|---|---|---|---|---|---|'];
  for (const step of fleet.steps) {
    if (step.turnsPerSecond === undefined) {
      lines.push(`| ${number(step.runs)} | — | ${number(step.runs * (1000 / fleet.delayMs))} | — | — | — | ${number(step.rampMs / 1000, 1)} | no: ${step.note} |`);
      continue;
    }
    lines.push(
      `| ${number(step.runs)} | ${number(step.turnsPerSecond)} | ${number(step.idealTurnsPerSecond)} | ${number(step.ofIdeal * 100)} % | ${step.workerCpuUsPerTurn === null ? '—' : number(step.workerCpuUsPerTurn)} | ${step.workerRssMiB} | ${number(step.rampMs / 1000, 1)} | ${step.held ? 'yes' : step.endedInWindow > 0 ? `no (${step.endedInWindow} runs ended)` : 'no'} |`,
    );
  }
  lines.push(
    '',
    `One worker process (createWorker, concurrency = runs in flight) and one Postgres; a ${number(fleet.delayMs / 1000, 0)} s model; runs of ${fleet.tasksPerRun} ten-turn tasks, reused from step to step (${number(fleet.submitted)} submitted with submitRun, ${number(fleet.submitParallel)} at a time: ${number(fleet.submitMs / 1000, 1)} s). ` +
      `A step holds when turns/s over ${number(fleet.windowMs / 1000, 0)} s reaches ${number(fleet.threshold * 100)} % of the ideal (runs ÷ ${number(fleet.delayMs / 1000, 0)} s). Largest that held: **${number(fleet.fleetRuns)}**${fleet.smallestFailed === null ? ` (the search stopped at its cap, ${number(fleet.cap)})` : `; smallest that did not: ${number(fleet.smallestFailed)}`}.`,
  );
  return lines.join('\n');
}
