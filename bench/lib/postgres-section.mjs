/**
 * The Postgres figures (ADR/0445), on the server run.mjs started, each system in its own child
 * process on fresh schemas:
 *
 * - sequential: dualloop on `postgresStore`, runs one after another, the model answering at once:
 *   checkpointed turns/s of wall time (the server works beside the process) and the process's CPU.
 * - side by side: dualloop on `postgresStore` and LangGraph.js with `PostgresSaver`, the same
 *   10-turn workload with 1, 50 and 200 runs in flight on a 20 ms model (`inflight` protocol,
 *   lib/measure.mjs): checkpointed turns/s and CPU µs per turn at each level.
 */
import { medianRange, number } from './format.mjs';
import { summarize } from './stats.mjs';

export const POSTGRES_SYSTEMS = ['dualloop-postgres', 'langgraph-postgres'];

async function sideBySide(runChild, database, config) {
  const rows = [];
  for (const id of POSTGRES_SYSTEMS) {
    const module = await import(new URL(`../systems/${id}.mjs`, import.meta.url).href);
    const { label } = module.meta;
    const pending = module.pendingReason?.();
    if (pending !== undefined) {
      rows.push({ id, label, status: 'pending', note: pending });
      continue;
    }
    try {
      const env = { BENCH_DATABASE_URL: database.url, BENCH_SCHEMA: database.schema('bench_side') };
      const measured = await runChild({ system: id, protocol: 'inflight', ...config }, 'child.mjs', env);
      const levels = measured.levels.map((level) => ({
        inFlight: level.inFlight,
        turnsPerSecond: summarize(level.turnsPerSecond),
        cpuUsPerTurn: summarize(level.cpuUsPerTurn),
        idealTurnsPerSecond: level.idealTurnsPerSecond,
      }));
      rows.push({ id, label, status: 'ok', levels, ...(measured.checkpointsPerRun === undefined ? {} : { checkpointsPerRun: measured.checkpointsPerRun }) });
    } catch (error) {
      rows.push({ id, label, status: 'failed', note: error.message.slice(0, 200) });
    }
    process.stderr.write(`bench: postgres, ${id} done\n`);
  }
  return rows;
}

export async function measurePostgres(runChild, database, config) {
  let sequential;
  try {
    const env = { BENCH_DATABASE_URL: database.url, BENCH_SCHEMA: database.schema('bench_seq') };
    const measured = await runChild({ system: 'dualloop-postgres', protocol: 'sequential', ...config.sequential }, 'child.mjs', env);
    sequential = {
      turnsPerSecond: summarize(measured.usPerTurn.map((us) => 1e6 / us)),
      cpuUsPerTurn: summarize(measured.cpuUsPerTurn),
      runsPerRep: measured.runsPerRep,
    };
  } catch (error) {
    sequential = { status: 'failed', note: error.message.slice(0, 200) };
  }
  const sideBySideRows = await sideBySide(runChild, database, config.inFlight);
  return { server: database.description, sequential, sideBySide: sideBySideRows };
}

/** Turns/s of `id` at `inFlight` runs in flight (median), or undefined. */
export function inFlightTurnsPerSecond(postgres, id, inFlight) {
  const row = postgres?.sideBySide.find((candidate) => candidate.id === id && candidate.status === 'ok');
  return row?.levels.find((level) => level.inFlight === inFlight)?.turnsPerSecond.median;
}

const cell = (summary) => medianRange(summary);

export function postgresMarkdown(postgres, config) {
  const levels = config.inFlight.levels;
  const lines = [
    `| ${config.inFlight.delayMs} ms model, 10 turns a run | ${levels.map((level) => `turns/s, ${level} in flight`).join(' | ')} | CPU µs/turn, ${levels.at(-1)} in flight | checkpoints a run |`,
    `|---|${levels.map(() => '---|').join('')}---|---|`,
  ];
  for (const row of postgres.sideBySide) {
    if (row.status !== 'ok') {
      lines.push(`| ${row.label} | ${row.status}: ${row.note} |${levels.map(() => ' |').join('')}`);
      continue;
    }
    const at = (inFlight) => row.levels.find((level) => level.inFlight === inFlight);
    lines.push(`| ${row.label} | ${levels.map((level) => cell(at(level)?.turnsPerSecond)).join(' | ')} | ${cell(at(levels.at(-1))?.cpuUsPerTurn)} | ${row.checkpointsPerRun ?? '—'} |`);
  }
  const { sequential, server } = postgres;
  lines.push(
    '',
    sequential.turnsPerSecond === undefined
      ? `dualloop (postgresStore), runs one after another: ${sequential.status}: ${sequential.note}`
      : `dualloop (postgresStore), runs one after another, the model answering at once: ${cell(sequential.turnsPerSecond)} checkpointed turns/s, CPU ${cell(sequential.cpuUsPerTurn)} µs/turn (${sequential.runsPerRep} runs × ${config.sequential.reps}).`,
    `Runs in flight: ${config.inFlight.rounds} rounds per level, each that many runs started together, the clock stopped at the last one's end. Server: ${server.server}, ${server.version}, fsync ${server.fsync}, synchronous_commit ${server.synchronousCommit}.`,
  );
  return lines.join('\n');
}
