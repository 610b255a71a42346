/**
 * The one table docs/performance.md opens with: what a turn, a paused run, runs in flight, a
 * durable checkpoint and a fleet cost, dualloop beside the peers and the floor, medians of one run.
 * A cell is '—' when the system has no such thing or it was not measured in this run (the quick
 * run measures no peer but the durable LangGraph ones).
 */
import { number } from './format.mjs';

const COLUMNS = [
  { label: 'dualloop', memory: 'dualloop', sqlite: 'dualloop-sqlite', postgres: 'dualloop-postgres', fleet: true },
  { label: 'LangGraph.js', memory: 'langgraph', sqlite: 'langgraph-sqlite', postgres: 'langgraph-postgres' },
  { label: 'OpenAI Agents SDK', memory: 'openai-agents' },
  { label: 'Vercel AI SDK', memory: 'ai-sdk' },
  { label: 'pi-agent-core', memory: 'pi-agent-core' },
  { label: 'XState alone (the floor)', memory: 'floor' },
];

const PG_IN_FLIGHT = 200;

export function headlineMarkdown({ rows, postgres, fleet, config }) {
  const row = (id) => (id === undefined ? undefined : rows.find((candidate) => candidate.id === id && candidate.status === 'ok'));
  const pgRow = (id) => (id === undefined ? undefined : postgres?.sideBySide.find((candidate) => candidate.id === id && candidate.status === 'ok'));
  const show = (value, format) => (value === undefined || value === null ? '—' : format(value));
  const inFlight = config.concurrent.inFlight;
  const lines = [
    [
      `a turn: CPU µs, runs one after another, in memory`,
      (column) => show(row(column.memory)?.sequential?.cpuUsPerTurn.median, (value) => number(value, value < 100 ? 1 : 0)),
    ],
    [`a paused run: live heap, KiB`, (column) => show(row(column.memory)?.concurrent?.heapBytesPerRun.median, (value) => number(value / 1024, 1))],
    [
      `${number(inFlight)} runs in flight, ${config.concurrent.delayMs} ms model: wall s (ideal ${number((config.concurrent.delayMs * 10) / 1000, 1)})`,
      (column) => show(row(column.memory)?.concurrent?.wallMs.median, (value) => number(value / 1000, 1)),
    ],
    [`a durable turn on SQLite: CPU µs`, (column) => show(row(column.sqlite)?.sequential?.cpuUsPerTurn.median, (value) => number(value, 0))],
    [
      `checkpointed turns/s on Postgres, ${PG_IN_FLIGHT} runs in flight, 20 ms model`,
      (column) => show(pgRow(column.postgres)?.levels.find((level) => level.inFlight === PG_IN_FLIGHT)?.turnsPerSecond.median, (value) => number(value, 0)),
    ],
    [
      `a fleet: runs one worker process and one Postgres carry at ≥ 90 % of a 1 s model's pace`,
      (column) => (column.fleet && fleet?.status === 'ok' ? `${number(fleet.fleetRuns)}${fleet.smallestFailed === null ? '+' : ''}` : '—'),
    ],
  ];
  return [
    `| what it costs | ${COLUMNS.map((column) => column.label).join(' | ')} |`,
    `|---|${COLUMNS.map(() => '---|').join('')}`,
    ...lines.map(([label, value]) => `| ${label} | ${COLUMNS.map(value).join(' | ')} |`),
  ].join('\n');
}
