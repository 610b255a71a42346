/**
 * Turns the children's measurements into the published figures: medians with min–max, ratios to
 * dualloop in the same invocation, the checkpointing figure, a markdown table of every system and
 * a few lines on what it says (printed by run.mjs).
 */
import { medianRange, number } from './format.mjs';
import { ratio, summarize } from './stats.mjs';

const REFERENCE = 'dualloop';

export function buildSystemRows(measured) {
  const rows = measured.map(({ id, label, status, note, sequential, concurrent }) => ({
    id,
    label,
    status,
    ...(note === undefined ? {} : { note }),
    ...(sequential === undefined
      ? {}
      : { sequential: { usPerTurn: summarize(sequential.usPerTurn), cpuUsPerTurn: summarize(sequential.cpuUsPerTurn), runsPerRep: sequential.runsPerRep } }),
    ...(concurrent === undefined
      ? {}
      : {
          concurrent: {
            inFlight: concurrent.inFlight,
            reps: concurrent.reps,
            idealMs: concurrent.idealMs,
            wallMs: summarize(concurrent.wallMs),
            heapBytesPerRun: summarize(concurrent.heapBytesPerRun),
          },
        }),
  }));
  const reference = rows.find((row) => row.id === REFERENCE);
  for (const row of rows) {
    row.vsDualloop = {
      usPerTurn: ratio(row.sequential?.usPerTurn, reference?.sequential?.usPerTurn),
      cpuUsPerTurn: ratio(row.sequential?.cpuUsPerTurn, reference?.sequential?.cpuUsPerTurn),
      wallMs: ratio(row.concurrent?.wallMs, reference?.concurrent?.wallMs),
      heapBytesPerRun: ratio(row.concurrent?.heapBytesPerRun, reference?.concurrent?.heapBytesPerRun),
    };
  }
  return rows;
}

/**
 * Checkpointed turns per second on the sequential workload, sqliteStore beside memoryStore (a
 * checkpoint after every turn in both), wall and CPU time.
 */
export function checkpointFigure(rows) {
  const perSecond = (row, key) => (row?.sequential === undefined ? undefined : summarize(row.sequential[key].samples.map((us) => 1e6 / us)));
  const memoryRow = rows.find((row) => row.id === 'dualloop');
  const sqliteRow = rows.find((row) => row.id === 'dualloop-sqlite');
  const memory = perSecond(memoryRow, 'usPerTurn');
  const sqlite = perSecond(sqliteRow, 'usPerTurn');
  const cpuMemory = perSecond(memoryRow, 'cpuUsPerTurn');
  const cpuSqlite = perSecond(sqliteRow, 'cpuUsPerTurn');
  return {
    memoryTurnsPerSecond: memory,
    sqliteTurnsPerSecond: sqlite,
    sqliteCostVsMemory: sqlite === undefined || memory === undefined ? undefined : memory.median / sqlite.median,
    cpuBasis: {
      memoryTurnsPerSecond: cpuMemory,
      sqliteTurnsPerSecond: cpuSqlite,
      sqliteCostVsMemory: cpuSqlite === undefined || cpuMemory === undefined ? undefined : cpuMemory.median / cpuSqlite.median,
    },
  };
}

const microseconds = (value) => number(value, value < 10 ? 1 : 0);
const seconds = (ms) => number(ms / 1000, ms < 10_000 ? 2 : 1);
const kib = (bytes) => number(bytes / 1024, 1);

const cell = (summary, format) => medianRange(summary, format);

function times(value) {
  if (value === undefined) return '—';
  return `${number(value, value < 10 ? 2 : 1)}×`;
}

export function markdownTable(rows, config) {
  const { inFlight, delayMs } = config.concurrent;
  const ideal = seconds(delayMs * 10);
  const lines = [
    `| system | µs/turn, ${number(config.sequential.runs, 0)} sequential runs | × dualloop | CPU µs/turn | × dualloop | wall s, ${number(inFlight, 0)} concurrent runs, ${delayMs} ms model (ideal ${ideal}) | × dualloop | live heap per paused run, KiB | × dualloop |`,
    '|---|---|---|---|---|---|---|---|---|',
  ];
  for (const row of rows) {
    if (row.status !== 'ok') {
      lines.push(`| ${row.label} | ${row.status}: ${row.note ?? ''} | | | | | | | |`);
      continue;
    }
    const runs = row.sequential !== undefined && row.sequential.runsPerRep < config.sequential.runs ? ` [${row.sequential.runsPerRep} runs]` : '';
    const reps = row.concurrent !== undefined && row.concurrent.reps < config.concurrent.reps ? ` [${row.concurrent.reps} reps]` : '';
    lines.push(
      `| ${row.label} | ${cell(row.sequential?.usPerTurn, microseconds)}${runs} | ${times(row.vsDualloop.usPerTurn)} | ${cell(row.sequential?.cpuUsPerTurn, microseconds)} | ${times(row.vsDualloop.cpuUsPerTurn)} | ${cell(row.concurrent?.wallMs, seconds)}${reps} | ${times(row.vsDualloop.wallMs)} | ${cell(row.concurrent?.heapBytesPerRun, kib)}${reps} | ${times(row.vsDualloop.heapBytesPerRun)} |`,
    );
  }
  return lines.join('\n');
}

/** What the table's figures say about checkpoints and runs in flight, in a few lines (printed by run.mjs). */
export function noteLines(checkpoint, perRun, capacity) {
  const lines = [];
  const perSecond = (summary) => cell(summary, (value) => number(value, 0));
  if (checkpoint.memoryTurnsPerSecond !== undefined && checkpoint.sqliteTurnsPerSecond !== undefined) {
    lines.push(
      `Checkpointed turns/s, runs one after another: memoryStore ${perSecond(checkpoint.memoryTurnsPerSecond)}, sqliteStore ${perSecond(checkpoint.sqliteTurnsPerSecond)} ` +
        `(a durable turn costs ${number(checkpoint.sqliteCostVsMemory, 2)}× an in-memory one; ${number(checkpoint.cpuBasis.sqliteCostVsMemory, 2)}× in CPU time).`,
    );
  }
  if (perRun.dualloop.setupCpuUs !== null) {
    lines.push(`Per run beyond its turns (CPU): dualloop ${number(perRun.dualloop.setupCpuUs, 0)} µs, the floor ${perRun.floor.setupCpuUs === null ? '—' : number(perRun.floor.setupCpuUs, 0)} µs.`);
  }
  if (perRun.dualloop.pausedHeapKiB !== null) {
    lines.push(`Live heap per paused run: dualloop ${number(perRun.dualloop.pausedHeapKiB, 1)} KiB, the floor ${perRun.floor.pausedHeapKiB === null ? '—' : number(perRun.floor.pausedHeapKiB, 1)} KiB.`);
  }
  for (const [id, figure] of Object.entries(capacity)) {
    lines.push(`${id}, ${number(figure.inFlight, 0)} runs in flight (20 ms model): ${number(figure.wallMs / 1000, 1)} s, peak RSS ${number(figure.maxRssBytes / 2 ** 20, 0)} MiB, live heap ${kib(figure.heapBytesPerRun)} KiB/run.`);
  }
  return lines;
}
