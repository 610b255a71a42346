/**
 * Turns the children's measurements into the published figures: medians with min–max, ratios to
 * dualloop in the same invocation, the checkpointing figure of issue 5 and the overhead figure of
 * issue 2, and a markdown table (printed, and pasted into docs/performance.md).
 */
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

/** Issue 5: checkpointed turns per second, sqliteStore against memoryStore (a checkpoint after every turn in both). */
export function checkpointFigure(rows) {
  const perSecond = (row, key) => (row?.sequential === undefined ? undefined : summarize(row.sequential[key].samples.map((us) => 1e6 / us)));
  const memoryRow = rows.find((row) => row.id === 'dualloop');
  const sqliteRow = rows.find((row) => row.id === 'dualloop-sqlite');
  const memory = perSecond(memoryRow, 'usPerTurn');
  const sqlite = perSecond(sqliteRow, 'usPerTurn');
  const slowdown = sqlite === undefined || memory === undefined ? undefined : memory.median / sqlite.median;
  const cpuMemory = perSecond(memoryRow, 'cpuUsPerTurn');
  const cpuSqlite = perSecond(sqliteRow, 'cpuUsPerTurn');
  return {
    memoryTurnsPerSecond: memory,
    sqliteTurnsPerSecond: sqlite,
    sqliteCostVsMemory: slowdown,
    cpuBasis: {
      memoryTurnsPerSecond: cpuMemory,
      sqliteTurnsPerSecond: cpuSqlite,
      sqliteCostVsMemory: cpuSqlite === undefined || cpuMemory === undefined ? undefined : cpuMemory.median / cpuSqlite.median,
    },
    targets: { minSqliteTurnsPerSecond: 2000, maxSqliteCostVsMemory: 2 },
    met: sqlite === undefined ? undefined : sqlite.median >= 2000 && slowdown <= 2,
  };
}

/** Issue 2: kernel overhead beside the plain loop, and memory per run with many in flight. */
export function overheadFigure(rows) {
  const dualloop = rows.find((row) => row.id === 'dualloop');
  const plain = rows.find((row) => row.id === 'plain-loop');
  const us = dualloop?.sequential?.usPerTurn;
  return {
    dualloopUsPerTurn: us,
    dualloopCpuUsPerTurn: dualloop?.sequential?.cpuUsPerTurn,
    plainLoopUsPerTurn: plain?.sequential?.usPerTurn,
    overheadUsPerTurn: us === undefined || plain?.sequential === undefined ? undefined : us.median - plain.sequential.usPerTurn.median,
    heapBytesPerConcurrentRun: dualloop?.concurrent?.heapBytesPerRun,
    inFlight: dualloop?.concurrent?.inFlight,
    targets: { maxUsPerTurn: 40 },
    met: us === undefined ? undefined : us.median <= 40,
  };
}

const number = (value, digits) => value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const microseconds = (value) => number(value, value < 10 ? 1 : 0);
const seconds = (ms) => number(ms / 1000, ms < 10_000 ? 2 : 1);
const kib = (bytes) => number(bytes / 1024, 1);

function cell(summary, format) {
  if (summary === undefined) return '—';
  return `${format(summary.median)} (${format(summary.min)}–${format(summary.max)})`;
}

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

export function targetLines(checkpoint, overhead) {
  const status = (met) => (met === undefined ? 'pending' : met ? 'met' : 'not met');
  const lines = [];
  if (overhead.dualloopUsPerTurn !== undefined) {
    lines.push(
      `Issue 2 — kernel overhead: dualloop ${cell(overhead.dualloopUsPerTurn, microseconds)} µs/turn (CPU ${cell(overhead.dualloopCpuUsPerTurn, microseconds)}) beside the plain loop's ${cell(overhead.plainLoopUsPerTurn, microseconds)} ` +
        `(target ≤ ${overhead.targets.maxUsPerTurn}: ${status(overhead.met)}); live heap per run with ${number(overhead.inFlight ?? 0, 0)} in flight: ${cell(overhead.heapBytesPerConcurrentRun, kib)} KiB.`,
    );
  }
  if (checkpoint.memoryTurnsPerSecond !== undefined) {
    const sqlite = checkpoint.sqliteTurnsPerSecond === undefined ? 'pending (sqliteStore not built yet)' : `${cell(checkpoint.sqliteTurnsPerSecond, (value) => number(value, 0))}/s`;
    lines.push(
      `Issue 5 — checkpointed turns per second: memoryStore ${cell(checkpoint.memoryTurnsPerSecond, (value) => number(value, 0))}/s, sqliteStore ${sqlite}` +
        `${checkpoint.sqliteCostVsMemory === undefined ? '' : `, cost ${number(checkpoint.sqliteCostVsMemory, 2)}× the memory store's`}` +
        `${checkpoint.cpuBasis.sqliteCostVsMemory === undefined ? '' : ` (CPU time: ${number(checkpoint.cpuBasis.sqliteTurnsPerSecond.median, 0)}/s, ${number(checkpoint.cpuBasis.sqliteCostVsMemory, 2)}×)`}` +
        ` (targets ≥ 2,000/s and ≤ 2×: ${status(checkpoint.met)}).`,
    );
  }
  return lines;
}
