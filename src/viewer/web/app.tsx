import { useEffect, useMemo, useState } from 'preact/hooks';
import type { RunParent, RunSummary } from '../../contracts/store.js';
import { activeStatesAt } from '../model/active-states.js';
import { gaugesFor } from '../model/gauges.js';
import { INITIAL_PROGRESS, reduceProgress } from '../model/run-progress.js';
import { timelineLanes } from '../model/lanes.js';
import { taskGraphAt, taskGraphShape } from '../model/task-graph.js';
import { timelineRows } from '../model/timeline.js';
import type { MachineGraphs } from '../protocol.js';
import { approveCall, fetchMachines, fetchRuns, forkRun } from './api.js';
import { ApprovalPanel } from './approval-panel.js';
import { waitingApprovals } from '../model/waiting-approvals.js';
import { runTree } from '../model/run-tree.js';
import { formatForkPoint, type ForkPoint } from '../../contracts/fork.js';
import { GaugesPanel } from './gauges-panel.js';
import { LanesPanel } from './lanes-panel.js';
import { MachineDiagram } from './machine-diagram.js';
import { Scrubber } from './scrubber.js';
import { StopTree } from './stop-tree.js';
import { TaskGraphPanel } from './task-graph-panel.js';
import { TimelinePanel } from './timeline-panel.js';
import { useRun } from './use-run.js';

const TICK_MS = 500;

/** The viewer: pick a run, watch it live or replay it. All state derives from the run's events up to the cursor. */
export function App() {
  const [machines, setMachines] = useState<MachineGraphs | undefined>(undefined);
  const [runs, setRuns] = useState<readonly RunSummary[]>([]);
  const [runId, setRunId] = useState<string | undefined>(new URLSearchParams(location.search).get('run') ?? undefined);
  const [failure, setFailure] = useState<string | undefined>(undefined);
  const [control, setControl] = useState(false);
  const [approves, setApproves] = useState(false);
  const loadRuns = () =>
    fetchRuns().then(
      (response) => {
        setRuns(response.runs);
        setControl(response.control);
        setApproves(response.approve);
        setRunId((current) => current ?? response.selected);
      },
      (error: unknown) => setFailure(String(error)),
    );
  useEffect(() => {
    fetchMachines().then(setMachines, (error: unknown) => setFailure(String(error)));
    void loadRuns();
  }, []);

  const run = useRun(runId);
  const total = run.events.length;
  const [cursorAt, setCursorAt] = useState<number | undefined>(undefined);
  // Following (no cursor of its own): the replay sits at the newest event.
  const follow = cursorAt === undefined || cursorAt >= total;
  const cursor = follow ? total : cursorAt;
  useEffect(() => setCursorAt(undefined), [runId]);

  const last = run.events[total - 1];
  const finalStop = last?.type === 'workflow_end' ? last.stop : undefined;
  const ended = finalStop !== undefined;
  const [tick, setTick] = useState(0);
  useEffect(() => {
    if (!follow || ended || total === 0) return undefined;
    const timer = setInterval(() => setTick((value) => value + 1), TICK_MS);
    return () => clearInterval(timer);
  }, [follow, ended, total]);

  const states = useMemo(() => activeStatesAt(run.events, cursor), [run.events, cursor]);
  const progress = useMemo(() => run.events.slice(0, cursor).reduce(reduceProgress, INITIAL_PROGRESS), [run.events, cursor]);
  const rows = useMemo(() => timelineRows(run.events, run.children), [run.events, run.children]);
  const approvals = useMemo(() => waitingApprovals(run.events), [run.events]);
  // A child run found (`agentTool`): the run list learns of it, under its parent.
  useEffect(() => {
    if (run.children.length > 0) void loadRuns();
  }, [run.children.length]);
  // A graph run (tasks with dependsOn or forEach) gets its task graph and a lane per branch; a list, neither.
  const shape = useMemo(() => (run.info === undefined ? undefined : taskGraphShape(run.info.tasks)), [run.info]);
  const taskGraph = useMemo(() => (run.info === undefined ? undefined : taskGraphAt(run.info.tasks, run.events, cursor)), [run.info, run.events, cursor]);
  const lanes = useMemo(() => (shape === undefined ? undefined : timelineLanes(run.events, cursor)), [shape, run.events, cursor]);
  const startedAt = run.events[0]?.at;
  const atCursor = run.events[cursor - 1]?.at;
  // Live, clocks run on between events: the kernel's time of the last event plus the time since it arrived.
  const now = atCursor === undefined ? 0 : follow && !ended ? atCursor + (performance.now() - run.receivedAt) : atCursor;
  const gauges = gaugesFor(progress, run.info, now);
  void tick;

  const select = (position: number) => setCursorAt(position >= total ? undefined : position);
  const choose = (id: string) => {
    history.replaceState(null, '', `?run=${encodeURIComponent(id)}`);
    setRunId(id);
  };
  // The new run is followed at once; the run list learns of it (under its parent) right after.
  const fork =
    control && runId !== undefined
      ? (at: ForkPoint) =>
          forkRun(runId, at).then(
            (forked) => {
              setFailure(undefined);
              choose(forked);
              void loadRuns();
            },
            (error: unknown) => setFailure(error instanceof Error ? error.message : String(error)),
          )
      : undefined;
  const task = progress.task;
  return (
    <div class="viewer">
      <header class="top">
        <h1>dualloop</h1>
        <select aria-label="run" value={runId ?? ''} onChange={(event) => choose((event.target as HTMLSelectElement).value)}>
          {runId !== undefined && !runs.some((entry) => entry.runId === runId) ? <option value={runId}>{runId}</option> : null}
          {runTree(runs).map(({ run: entry, depth }) => (
            <option value={entry.runId} key={entry.runId} data-depth={depth}>
              {depth === 0 ? '' : `${'\u00a0\u00a0'.repeat(depth)}↳ `}
              {entry.runId}
              {entry.name === undefined ? '' : ` · ${entry.name}`}
              {entry.forkOf === undefined ? '' : ` · forked at ${formatForkPoint(entry.forkOf.at)}`}
              {entry.parent === undefined ? '' : ` · delegated by ${entry.parent.toolCallId}`}
              {entry.stop === undefined ? '' : ` · ${entry.stop.reason}`}
            </option>
          ))}
        </select>
        <span class="run-status" data-testid="run-status" data-ended={ended ? 'true' : 'false'}>
          {run.missing ? 'no such run in the store' : finalStop !== undefined ? `stopped: ${finalStop.reason}` : total === 0 ? 'waiting for events' : 'running'}
          {follow ? '' : ' · replaying'}
        </span>
        {run.info?.parent === undefined ? null : <ParentLink parent={run.info.parent} onOpen={choose} />}
        <span class={`connection ${run.connected ? 'up' : 'down'}`}>{run.connected ? 'connected' : 'reconnecting…'}</span>
      </header>
      {failure === undefined ? null : <p class="error">{failure}</p>}
      {runId === undefined && runs.length === 0 && failure === undefined ? <p class="empty">The store has no runs yet.</p> : null}
      <Scrubber
        cursor={cursor}
        total={total}
        offsetMs={atCursor === undefined || startedAt === undefined ? undefined : atCursor - startedAt}
        follow={follow}
        ended={ended}
        onMove={(to) => setCursorAt(to >= total ? undefined : to)}
        onFollow={() => setCursorAt(undefined)}
      />
      <div class="machines">
        {machines === undefined ? (
          <p class="loading">loading the machines…</p>
        ) : (
          <>
            <MachineDiagram title="workflow (outer loop)" graph={machines.workflow} active={states.workflow} subject={run.info?.name} />
            <MachineDiagram
              title="turn (inner loop)"
              graph={machines.turn}
              active={states.turn}
              {...(task === undefined ? {} : { subject: `task ${task.index + 1} ${task.taskId} · turn ${task.turn}` })}
            />
          </>
        )}
      </div>
      <ApprovalPanel
        key={runId}
        approvals={approvals}
        onAnswer={approves && runId !== undefined ? (approvalId, answer) => approveCall(runId, approvalId, answer) : undefined}
        onOpenRun={choose}
      />
      <GaugesPanel gauges={gauges} taskTitle={task === undefined ? 'task' : `task ${task.index + 1} ${task.taskId}`} />
      {shape === undefined || taskGraph === undefined || lanes === undefined ? null : (
        <div class="graph-run">
          <TaskGraphPanel graph={taskGraph} shape={shape} />
          <LanesPanel lanes={lanes} onSelect={select} />
        </div>
      )}
      <div class="lower">
        <TimelinePanel
          rows={rows}
          cursor={cursor}
          startedAt={startedAt}
          follow={follow}
          onSelect={select}
          onFork={fork === undefined ? undefined : (at) => void fork(at)}
          onOpenRun={choose}
        />
        <StopTree audit={run.audit} />
      </div>
    </div>
  );
}

/** On a child run's page (`agentTool`): back to the run whose tool call started it. */
function ParentLink({ parent, onOpen }: { readonly parent: RunParent; readonly onOpen: (runId: string) => void }) {
  return (
    <a
      class="parent-run"
      data-testid="parent-run"
      data-run={parent.runId}
      href={`?run=${encodeURIComponent(parent.runId)}`}
      title={`open the run whose tool call ${parent.toolCallId} started this one`}
      onClick={(event) => {
        event.preventDefault();
        onOpen(parent.runId);
      }}
    >
      ← child of {parent.runId} (call {parent.toolCallId})
    </a>
  );
}
