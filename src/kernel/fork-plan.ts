/**
 * `kernel.fork` (ADR/0220, docs/time-travel.md): builds a launch plan for a new run from a point
 * of another run's checkpoint history. The source is only read — no lease, no write — so a run
 * that is still running is forked from what it has recorded so far and never waits for the fork.
 * The fork's history starts with one snapshot entry holding the (edited) state at the point, read
 * back as a resume would read it: a fork that crashes before its first turn resumes from there.
 */
import { CheckpointWriter } from '../checkpoint/checkpoint-writer.js';
import { rebuiltOrThrow } from '../checkpoint/read-checkpoint.js';
import type { OuterBounds } from '../contracts/bounds.js';
import { formatForkPoint, type ForkOptions, type ForkOrigin, type ForkPoint } from '../contracts/fork.js';
import type { RunRecord } from '../contracts/store.js';
import type { TaskSpec } from '../contracts/turn-protocol.js';
import { EMPTY_PROGRESS, type WorkflowProgress } from '../contracts/workflow-protocol.js';
import { RunError } from '../errors.js';
import { applyForkEdit } from './fork-edit.js';
import { graphForkState } from './graph-fork.js';
import { isGraph } from '../graph/task-graph.js';
import { describeForkPoints, findForkPoint, forkPoints } from './fork-points.js';
import type { KernelDeps } from './kernel-deps.js';
import type { LaunchPlan } from './launch-run.js';
import { fencedStore, RunFence } from './fenced-store.js';
import { codedStoreFailure } from './coded-store-failure.js';
import { acquireRunLease, heldError } from './run-lease.js';
import type { WorkflowFingerprint } from '../contracts/fingerprint.js';
import { fingerprintChanges } from './fingerprint-changes.js';
import { workflowChanged } from './resume-plan.js';

/** The state at a point of a run's history, found in the run itself or, before a fork's own point, in its parent. */
async function stateAt(deps: KernelDeps, record: RunRecord, at: ForkPoint): Promise<WorkflowProgress> {
  const { store } = deps;
  const points = forkPoints(await store.listCheckpoints(record.runId), record.tasks.length);
  const sequence = findForkPoint(points, at);
  if (sequence === undefined) {
    // A fork holds no history before its own point: that part is its parent's, unchanged.
    const parent = record.forkOf === undefined || !isBefore(at, record.forkOf.at) ? undefined : await store.getRun(record.forkOf.runId);
    if (parent !== undefined) return stateAt(deps, parent, at);
    const before = record.forkOf === undefined ? '' : ` (and, before its own point ${formatForkPoint(record.forkOf.at)}, those of ${record.forkOf.runId})`;
    throw new RunError({
      code: 'fork_point_not_found',
      runId: record.runId,
      message: `run ${record.runId} has no point ${formatForkPoint(at)} to fork from; its points are ${describeForkPoints(points)}${before}`,
    });
  }
  if (sequence === 0) return EMPTY_PROGRESS;
  const checkpoint = rebuiltOrThrow(await store.loadCheckpoint(record.runId, { sequence }), record.runId);
  if (checkpoint === undefined) throw new RunError({ code: 'checkpoint_corrupt', runId: record.runId, message: `run ${record.runId}: checkpoint #${sequence} is listed but cannot be loaded` });
  return checkpoint.view.progress;
}

/** A task given by id becomes its number: what the fork records and the points are counted in. */
function pointOf(record: RunRecord, at: ForkOptions['at']): ForkPoint {
  if (typeof at.task === 'number') return at as ForkPoint;
  const task = record.tasks.find((spec) => spec.id === at.task);
  if (task === undefined) {
    throw new RunError({
      code: 'fork_point_not_found',
      runId: record.runId,
      message: `run ${record.runId} has no task ${at.task} to fork from; its tasks are ${record.tasks.map((spec) => `${spec.index + 1} (${spec.id})`).join(', ')}`,
    });
  }
  return { task: task.index + 1, ...(at.turn === undefined ? {} : { turn: at.turn }) };
}

/** A graph's fork point is a task of it (by number or id). */
function graphTaskAt(record: RunRecord, at: ForkPoint): TaskSpec {
  const task = record.tasks[at.task - 1];
  if (task !== undefined) return task;
  throw new RunError({
    code: 'fork_point_not_found',
    runId: record.runId,
    message: `run ${record.runId} has no task ${at.task} to fork from; its tasks are ${record.tasks.map((spec) => `${spec.index + 1} (${spec.id})`).join(', ')}`,
  });
}

function isBefore(at: ForkPoint, point: ForkPoint): boolean {
  return at.task < point.task || (at.task === point.task && (at.turn ?? 1) < (point.turn ?? 1));
}

export interface ForkRequest {
  readonly sourceRunId: string;
  readonly runId: string;
  readonly workflow: { readonly digest: string; readonly fingerprint: WorkflowFingerprint };
  readonly holder: string;
  readonly options: ForkOptions;
}

/**
 * Records the fork (run record with `forkOf`, lease, first entry) and returns what to launch.
 * Rejects with RunError `run_not_found`, `fork_point_not_found` (naming the valid points),
 * `run_exists`, or a checkpoint error of the source.
 */
export async function createForkPlan(deps: KernelDeps, request: ForkRequest): Promise<Omit<LaunchPlan, 'holder'> & { readonly outerBounds: OuterBounds }> {
  const { store, clock } = deps;
  const { sourceRunId, runId, options } = request;
  const source = await store.getRun(sourceRunId);
  if (source === undefined) {
    throw new RunError({ code: 'run_not_found', runId: sourceRunId, message: `run ${sourceRunId} does not exist in the ${store.kind} store` });
  }
  const at = pointOf(source, options.at);
  const graph = isGraph(source.tasks);
  const forked = graph ? await graphForkState(deps, source, graphTaskAt(source, at), at.turn, options.edit) : undefined;
  const edited = forked ?? applyForkEdit(await stateAt(deps, source, at), source.tasks, at.task - 1, options.edit);
  const forkOf: ForkOrigin = { runId: sourceRunId, at, ...(forked === undefined ? {} : { rerun: forked.rerun }) };
  // The fork runs this kernel's workflow from the source's state: a change since is refused unless
  // accepted — bounds aside, which a fork sets for itself (`edit.bounds`, the CLI's bound flags).
  const current = request.workflow.fingerprint;
  const changes = source.fingerprint === undefined ? [] : fingerprintChanges(source.fingerprint, { ...current, bounds: source.fingerprint.bounds });
  if (changes.length > 0 && options.acceptChange !== true) throw workflowChanged(sourceRunId, changes);
  try {
    await store.createRun({
      runId,
      ...(source.name === undefined ? {} : { name: source.name }),
      optionsDigest: request.workflow.digest,
      fingerprint: request.workflow.fingerprint,
      tasks: edited.tasks,
      createdAt: clock.now(),
      forkOf: { runId: sourceRunId, at },
    });
  } catch (error) {
    // A duplicate id is the store's RunError `run_exists`; any other failure is the store's (src/kernel/coded-store-failure.ts).
    throw codedStoreFailure(error, store, runId, 'fork: recording');
  }
  const askedAt = performance.now();
  const lease = await acquireRunLease(store, runId, request.holder, deps.loop.leaseMs);
  if (!lease.acquired) throw heldError(runId, lease);
  const fence = new RunFence(runId, askedAt);
  fence.set(lease.token);
  await new CheckpointWriter({ runId, store: fencedStore(store, fence, () => undefined), now: () => clock.now(), lastEventSeq: () => 0, graph }).forkStart(edited.progress);
  const base = rebuiltOrThrow(await store.loadCheckpoint(runId), runId)!;
  const outer = Object.fromEntries(Object.entries(options.edit?.bounds?.outer ?? {}).filter(([, value]) => value !== undefined));
  return {
    runId,
    tasks: edited.tasks,
    progress: base.view.progress,
    checkpoint: base,
    resumed: false,
    approvals: new Map(),
    lastEventSeq: 0,
    signal: options.signal,
    forkOf,
    outerBounds: { ...deps.loop.bounds.outer, ...outer },
    fence,
    ...(changes.length === 0 ? {} : { accepted: { changes, by: request.holder } }),
  };
}
