/**
 * The `summary` of bench/results/latest.json (ADR 0123, ADR/0447): exactly these keys, each a
 * number or null when its measurement is missing, so it can be read outside the project and
 * compared with GOALS. Each is a ratio of two systems measured in the same run, or a size.
 * `summaryBasis` says what each figure was computed from, with the raw figures.
 *
 * The sequential ratios (vsFloor, setupVsFloor, durableVsLangGraph) use the process's CPU time per
 * turn: the systems run one after another, minutes apart, on cores others share, and wall time then
 * moves by tens of percent between them while CPU time moves by a few (ADR 0123); the wall-clock
 * ratios are in `summaryBasis` beside them. The Postgres figures are wall time (the server works
 * beside the measured process), and so are the concurrent and import figures.
 */
import { inFlightTurnsPerSecond } from './postgres-section.mjs';
import { summarize } from './stats.mjs';

export const GOALS = {
  pgTurnsPerSec200: { min: 2000 },
  pgVsLangGraph: { min: 5 },
  pgSequentialTurnsPerSec: { min: 1000 },
  fleetRuns: { min: 1000 },
  vsFloor: { max: 2.0 },
  setupVsFloor: { max: 1.3 },
  pausedHeapVsFloor: { max: 1.8 },
  concurrentVsFloor: { max: 2.0 },
  durableVsLangGraph: { min: 6 },
  importMs: { max: 80 },
  growth: { max: 1.2 },
  bytesPerTurnGrowth: { max: 1.2 },
  graphVsOneTask: { max: 1.5 },
};

/** Tasks at each end of the growth run whose medians are compared (one task alone is too noisy on shared cores). */
export const GROWTH_WINDOW = 10;
/** The in-flight level of `pgTurnsPerSec200` and `pgVsLangGraph`. */
const PG_IN_FLIGHT = 200;

const round = (value, digits = 2) => (value === undefined || !Number.isFinite(value) ? null : Math.round(value * 10 ** digits) / 10 ** digits);
const median = (values) => summarize(values).median;
const divide = (a, b) => (a === undefined || b === undefined || b === 0 ? undefined : a / b);
const difference = (a, b) => (a === undefined || b === undefined ? undefined : a - b);

function endsRatio(perTask, key) {
  const values = perTask.map((task) => task[key]);
  if (values.length < 2 * GROWTH_WINDOW || values.some((value) => value === undefined)) return undefined;
  return divide(median(values.slice(-GROWTH_WINDOW)), median(values.slice(0, GROWTH_WINDOW)));
}

/**
 * Per-run setup (CPU µs of a 1-turn run minus one turn of the 10-turn workload) and live heap per
 * paused run (KiB), for dualloop and the floor: the absolute figures behind two of the ratios.
 */
export function perRunFigures(rows, setup) {
  const row = (id) => rows.find((candidate) => candidate.id === id && candidate.status === 'ok');
  const setupUs = (id, key, turnKey) => difference(setup[id]?.[key] === undefined ? undefined : median(setup[id][key]), row(id)?.sequential?.[turnKey].median);
  const heapKiB = (id) => divide(row(id)?.concurrent?.heapBytesPerRun.median, 1024);
  const figures = (id) => ({ setupCpuUs: round(setupUs(id, 'cpuUsPerRun', 'cpuUsPerTurn'), 0), setupWallUs: round(setupUs(id, 'usPerRun', 'usPerTurn'), 0), pausedHeapKiB: round(heapKiB(id), 1) });
  return { dualloop: figures('dualloop'), floor: figures('floor') };
}

function postgresFigures(postgres, fleet) {
  const dualloop = inFlightTurnsPerSecond(postgres, 'dualloop-postgres', PG_IN_FLIGHT);
  const langgraph = inFlightTurnsPerSecond(postgres, 'langgraph-postgres', PG_IN_FLIGHT);
  const sequential = postgres?.sequential?.turnsPerSecond;
  const summary = {
    pgTurnsPerSec200: round(dualloop, 0),
    pgVsLangGraph: round(divide(dualloop, langgraph)),
    pgSequentialTurnsPerSec: round(sequential?.median, 0),
    fleetRuns: fleet?.status === 'ok' ? fleet.fleetRuns : null,
  };
  const fleetBasis =
    fleet?.status !== 'ok'
      ? `not measured${fleet?.note === undefined ? '' : `: ${fleet.note}`}`
      : `largest number of runs one worker process (createWorker, pg-boss) and one Postgres kept at ≥ ${fleet.threshold * 100} % of the ideal turns/s (runs ÷ ${fleet.delayMs / 1000} s) with a ${fleet.delayMs / 1000} s model; tried ${fleet.steps.map((step) => `${step.runs} (${step.ofIdeal === undefined ? step.note : `${Math.round(step.ofIdeal * 100)} %`})`).join(', ')}` +
        `${fleet.mode === 'quick' ? `; quick run: a reduced search — ${fleet.start} first, then halving and ${fleet.bisections} bisection, so it reads ${fleet.start} when ${fleet.start} holds, not how far beyond` : ''}`;
  const basis = {
    pgTurnsPerSec200: `dualloop (postgresStore): checkpointed turns/s with ${PG_IN_FLIGHT} runs in flight, 20 ms model, 10-turn runs (median of rounds, wall time)`,
    pgVsLangGraph: `same protocol: dualloop (postgresStore) ${round(dualloop, 0)} turns/s ÷ LangGraph.js createReactAgent + PostgresSaver ${round(langgraph, 0)} turns/s, ${PG_IN_FLIGHT} in flight, one server`,
    pgSequentialTurnsPerSec: `dualloop (postgresStore), runs one after another, the model answering at once: checkpointed turns/s of wall time (CPU ${round(postgres?.sequential?.cpuUsPerTurn?.median, 0)} µs/turn in the bench process)`,
    fleetRuns: fleetBasis,
  };
  return { summary, basis };
}

export function buildSummary({ rows, setup, growth, importTime, graph, postgres, fleet }) {
  const row = (id) => rows.find((candidate) => candidate.id === id && candidate.status === 'ok');
  const [floor, dualloop, sqlite, langgraph] = ['floor', 'dualloop', 'dualloop-sqlite', 'langgraph-sqlite'].map(row);
  const usPerTurn = (system) => system?.sequential?.cpuUsPerTurn.median;
  const wallUsPerTurn = (system) => system?.sequential?.usPerTurn.median;
  const perRun = perRunFigures(rows, setup);
  const bytesKey = growth?.perTask.every((task) => task.writtenBytesPerTurn !== undefined) ? 'writtenBytesPerTurn' : 'rowBytesPerTurn';
  const pg = postgresFigures(postgres, fleet);
  const summary = {
    ...pg.summary,
    vsFloor: round(divide(usPerTurn(dualloop), usPerTurn(floor))),
    setupVsFloor: round(divide(perRun.dualloop.setupCpuUs ?? undefined, perRun.floor.setupCpuUs ?? undefined)),
    pausedHeapVsFloor: round(divide(perRun.dualloop.pausedHeapKiB ?? undefined, perRun.floor.pausedHeapKiB ?? undefined)),
    concurrentVsFloor: round(divide(dualloop?.concurrent?.wallMs.median, floor?.concurrent?.wallMs.median)),
    durableVsLangGraph: round(divide(usPerTurn(langgraph), usPerTurn(sqlite))),
    importMs: round(importTime?.median, 1),
    growth: round(growth === undefined ? undefined : endsRatio(growth.perTask, 'cpuUsPerTurn')),
    bytesPerTurnGrowth: round(growth === undefined ? undefined : endsRatio(growth.perTask, bytesKey)),
    graphVsOneTask: round(graph?.ratio.median),
  };
  const inFlight = dualloop?.concurrent?.inFlight ?? '—';
  const basis = {
    ...pg.basis,
    vsFloor: `CPU: dualloop (memoryStore) ${round(usPerTurn(dualloop), 1)} µs/turn ÷ the floor's ${round(usPerTurn(floor), 1)} (medians, sequential, 10-turn workload); wall: ${round(wallUsPerTurn(dualloop), 1)} ÷ ${round(wallUsPerTurn(floor), 1)} = ${round(divide(wallUsPerTurn(dualloop), wallUsPerTurn(floor)))}`,
    setupVsFloor: `CPU per run beyond its turns (a 1-turn run − one turn of the 10-turn workload): dualloop ${perRun.dualloop.setupCpuUs} µs ÷ the floor's ${perRun.floor.setupCpuUs} µs; wall: ${perRun.dualloop.setupWallUs} ÷ ${perRun.floor.setupWallUs} µs`,
    pausedHeapVsFloor: `live heap per run paused inside its 5th model call, ${inFlight} in flight: dualloop ${perRun.dualloop.pausedHeapKiB} KiB ÷ the floor's ${perRun.floor.pausedHeapKiB} KiB`,
    concurrentVsFloor: `wall time of ${inFlight} concurrent runs, 20 ms model: ${round(dualloop?.concurrent?.wallMs.median, 0)} ms ÷ the floor's ${round(floor?.concurrent?.wallMs.median, 0)} ms`,
    durableVsLangGraph: `CPU: dualloop (sqliteStore) checkpointed turns/s ÷ LangGraph.js SqliteSaver's = ${round(usPerTurn(langgraph), 0)} µs/turn ÷ ${round(usPerTurn(sqlite), 0)} µs/turn; wall: ${round(wallUsPerTurn(langgraph), 0)} ÷ ${round(wallUsPerTurn(sqlite), 0)} = ${round(divide(wallUsPerTurn(langgraph), wallUsPerTurn(sqlite)))}`,
    importMs: `cold import('dualloop') (the package's root entry) in a fresh process, median of ${importTime?.samples.length ?? 0}`,
    growth: `${growth?.tasks ?? '—'}-task × 10-turn run on sqliteStore: median CPU µs/turn of the last ${GROWTH_WINDOW} tasks ÷ the first ${GROWTH_WINDOW}'s (wall: ${round(growth === undefined ? undefined : endsRatio(growth.perTask, 'usPerTurn'))})`,
    bytesPerTurnGrowth: `same run, ${bytesKey === 'writtenBytesPerTurn' ? 'bytes the main thread passed to write(2) (wchar)' : 'bytes of the rows added'} per turn, last ${GROWTH_WINDOW} tasks ÷ first ${GROWTH_WINDOW} (medians)`,
    graphVsOneTask: `wall time of ${graph?.branches ?? '—'} independent ${graph?.turns ?? '—'}-turn tasks with maxParallelTasks ${graph?.branches ?? '—'} ÷ one such task's, ${graph?.delayMs ?? '—'} ms model: ${round(graph?.graphMs.median, 0)} ms ÷ ${round(graph?.oneTaskMs.median, 0)} ms (median of the per-rep ratios)`,
  };
  const met = Object.fromEntries(
    Object.entries(GOALS).map(([key, goal]) => [key, summary[key] === null ? null : goal.max !== undefined ? summary[key] <= goal.max : summary[key] >= goal.min]),
  );
  return { summary, summaryBasis: basis, goals: GOALS, goalsMet: met, perRun };
}

const goalText = (goal) => (goal.max !== undefined ? `≤ ${goal.max}` : `≥ ${goal.min}`);

/** One line per key: value, goal, met, basis (printed by run.mjs). */
export function summaryLines({ summary, goals, goalsMet, summaryBasis }) {
  return Object.keys(goals).map((key) => {
    const status = goalsMet[key] === null ? 'missing' : goalsMet[key] ? 'met' : 'NOT met';
    return `${key.padEnd(24)} ${String(summary[key]).padStart(8)}  goal ${goalText(goals[key]).padEnd(7)} ${status.padEnd(8)} ${summaryBasis[key]}`;
  });
}

/** The summary as a markdown table (printed by run.mjs, for docs/performance.md). */
export function summaryMarkdown({ summary, goals, goalsMet }) {
  const lines = ['| figure | this run | goal | met |', '|---|---|---|---|'];
  for (const key of Object.keys(goals)) {
    const met = goalsMet[key] === null ? 'not measured' : goalsMet[key] ? 'yes' : '**no**';
    lines.push(`| \`${key}\` | ${summary[key] ?? '—'} | ${goalText(goals[key])} | ${met} |`);
  }
  return lines.join('\n');
}
