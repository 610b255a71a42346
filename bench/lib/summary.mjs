/**
 * The `summary` of bench/results/latest.json (issue 16): exactly these keys, each a number or
 * null when its measurement is missing, so it can be read outside the project and compared with
 * GOALS. `summaryBasis` says what each figure was computed from.
 *
 * The sequential figures (vsFloor, setupUs, durableVsLangGraph) use the process's CPU time per
 * turn: the systems run one after another, minutes apart, on cores other engineers share, and wall
 * time then moves by tens of percent between them while CPU time moves by a few (ADR 0123). The
 * wall-clock figures are in `summaryBasis` beside them. Concurrent and import figures are wall time.
 */
import { summarize } from './stats.mjs';

export const GOALS = {
  vsFloor: { max: 1.5 },
  setupUs: { max: 300 },
  pausedHeapKiB: { max: 12.5 },
  concurrentVsFloor: { max: 1.3 },
  growth: { max: 1.2 },
  bytesPerTurnGrowth: { max: 1.2 },
  durableVsLangGraph: { min: 6 },
  importMs: { max: 80 },
  graphVsOneTask: { max: 1.5 },
};

/** Tasks at each end of the growth run whose medians are compared (one task alone is too noisy on shared cores). */
export const GROWTH_WINDOW = 10;

const round = (value, digits = 2) => (value === undefined || !Number.isFinite(value) ? null : Math.round(value * 10 ** digits) / 10 ** digits);
const median = (values) => summarize(values).median;
const divide = (a, b) => (a === undefined || b === undefined || b === 0 ? undefined : a / b);
const difference = (a, b) => (a === undefined || b === undefined ? undefined : a - b);

function endsRatio(perTask, key) {
  const values = perTask.map((task) => task[key]);
  if (values.length < 2 * GROWTH_WINDOW || values.some((value) => value === undefined)) return undefined;
  return divide(median(values.slice(-GROWTH_WINDOW)), median(values.slice(0, GROWTH_WINDOW)));
}

export function buildSummary({ rows, setup, growth, importTime, graph }) {
  const row = (id) => rows.find((candidate) => candidate.id === id && candidate.status === 'ok');
  const [floor, dualloop, sqlite, langgraph] = ['floor', 'dualloop', 'dualloop-sqlite', 'langgraph-sqlite'].map(row);
  const usPerTurn = (system) => system?.sequential?.cpuUsPerTurn.median;
  const wallUsPerTurn = (system) => system?.sequential?.usPerTurn.median;
  const setupOf = (id, key) => (setup[id]?.[key] === undefined ? undefined : median(setup[id][key]));
  const dualloopSetupRun = setupOf('dualloop', 'cpuUsPerRun');
  const bytesKey = growth?.perTask.every((task) => task.writtenBytesPerTurn !== undefined) ? 'writtenBytesPerTurn' : 'rowBytesPerTurn';
  const summary = {
    vsFloor: round(divide(usPerTurn(dualloop), usPerTurn(floor))),
    setupUs: round(difference(dualloopSetupRun, usPerTurn(dualloop)), 0),
    pausedHeapKiB: round(divide(dualloop?.concurrent?.heapBytesPerRun.median, 1024), 1),
    concurrentVsFloor: round(divide(dualloop?.concurrent?.wallMs.median, floor?.concurrent?.wallMs.median)),
    growth: round(growth === undefined ? undefined : endsRatio(growth.perTask, 'cpuUsPerTurn')),
    bytesPerTurnGrowth: round(growth === undefined ? undefined : endsRatio(growth.perTask, bytesKey)),
    durableVsLangGraph: round(divide(usPerTurn(langgraph), usPerTurn(sqlite))),
    importMs: round(importTime?.median, 1),
    graphVsOneTask: round(graph?.ratio.median),
  };
  const basis = {
    vsFloor: `CPU: dualloop (memoryStore) ${round(usPerTurn(dualloop), 1)} µs/turn ÷ the floor's ${round(usPerTurn(floor), 1)} (medians, sequential, 10-turn workload); wall: ${round(wallUsPerTurn(dualloop), 1)} ÷ ${round(wallUsPerTurn(floor), 1)} = ${round(divide(wallUsPerTurn(dualloop), wallUsPerTurn(floor)))}`,
    setupUs: `CPU: a 1-turn run ${round(dualloopSetupRun, 1)} µs − one turn ${round(usPerTurn(dualloop), 1)} µs (the floor: ${round(difference(setupOf('floor', 'cpuUsPerRun'), usPerTurn(floor)), 1)} µs); wall: ${round(difference(setupOf('dualloop', 'usPerRun'), wallUsPerTurn(dualloop)), 0)} µs`,
    pausedHeapKiB: `live heap per run paused inside its 5th model call, ${dualloop?.concurrent?.inFlight ?? '—'} in flight (the floor: ${round(divide(floor?.concurrent?.heapBytesPerRun.median, 1024), 1)} KiB)`,
    concurrentVsFloor: `wall time of ${dualloop?.concurrent?.inFlight ?? '—'} concurrent runs, 20 ms model: ${round(dualloop?.concurrent?.wallMs.median, 0)} ms ÷ the floor's ${round(floor?.concurrent?.wallMs.median, 0)} ms`,
    growth: `${growth?.tasks ?? '—'}-task × 10-turn run on sqliteStore: median CPU µs/turn of the last ${GROWTH_WINDOW} tasks ÷ the first ${GROWTH_WINDOW}'s (wall: ${round(growth === undefined ? undefined : endsRatio(growth.perTask, 'usPerTurn'))})`,
    bytesPerTurnGrowth: `same run, ${bytesKey === 'writtenBytesPerTurn' ? 'bytes the main thread passed to write(2) (wchar)' : 'bytes of the rows added'} per turn, last ${GROWTH_WINDOW} tasks ÷ first ${GROWTH_WINDOW} (medians)`,
    durableVsLangGraph: `CPU: dualloop (sqliteStore) checkpointed turns/s ÷ LangGraph.js SqliteSaver's = ${round(usPerTurn(langgraph), 0)} µs/turn ÷ ${round(usPerTurn(sqlite), 0)} µs/turn; wall: ${round(wallUsPerTurn(langgraph), 0)} ÷ ${round(wallUsPerTurn(sqlite), 0)} = ${round(divide(wallUsPerTurn(langgraph), wallUsPerTurn(sqlite)))}`,
    importMs: `cold import('dualloop') (the package's root entry) in a fresh process, median of ${importTime?.samples.length ?? 0}`,
    graphVsOneTask: `wall time of ${graph?.branches ?? '—'} independent ${graph?.turns ?? '—'}-turn tasks with maxParallelTasks ${graph?.branches ?? '—'} ÷ one such task's, ${graph?.delayMs ?? '—'} ms model: ${round(graph?.graphMs.median, 0)} ms ÷ ${round(graph?.oneTaskMs.median, 0)} ms (median of the per-rep ratios)`,
  };
  const met = Object.fromEntries(
    Object.entries(GOALS).map(([key, goal]) => [key, summary[key] === null ? null : goal.max !== undefined ? summary[key] <= goal.max : summary[key] >= goal.min]),
  );
  return { summary, summaryBasis: basis, goals: GOALS, goalsMet: met };
}

export function summaryLines({ summary, goals, goalsMet, summaryBasis }) {
  return Object.keys(goals).map((key) => {
    const goal = goals[key].max !== undefined ? `≤ ${goals[key].max}` : `≥ ${goals[key].min}`;
    const status = goalsMet[key] === null ? 'missing' : goalsMet[key] ? 'met' : 'NOT met';
    return `${key.padEnd(20)} ${String(summary[key]).padStart(8)}  goal ${goal.padEnd(7)} ${status.padEnd(8)} ${summaryBasis[key]}`;
  });
}

/** What the issue measured before (issue 16, "today"), for the table in docs/performance.md. */
const BEFORE = { vsFloor: '2.54', setupUs: '744', pausedHeapKiB: '31.1', concurrentVsFloor: '2.7', growth: '13.6', bytesPerTurnGrowth: '~13', durableVsLangGraph: '6.4', importMs: '204–331', graphVsOneTask: '— (no graphs)' };

/** The summary as a markdown table (printed by run.mjs, pasted into docs/performance.md). */
export function summaryMarkdown({ summary, goals, goalsMet }) {
  const lines = ['| figure | before (issue 16) | now | goal | met |', '|---|---|---|---|---|'];
  for (const key of Object.keys(goals)) {
    const goal = goals[key].max !== undefined ? `≤ ${goals[key].max}` : `≥ ${goals[key].min}`;
    const met = goalsMet[key] === null ? 'not measured' : goalsMet[key] ? 'yes' : '**no**';
    lines.push(`| \`${key}\` | ${BEFORE[key]} | ${summary[key] ?? '—'} | ${goal} | ${met} |`);
  }
  return lines.join('\n');
}
