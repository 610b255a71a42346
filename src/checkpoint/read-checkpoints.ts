/**
 * Rebuilds a run's state from its checkpoint history as a store hands it back (`loadCheckpoint`):
 * the latest snapshot at or before the point, then every entry after it, each validated with zod
 * first (ADR/0120). Version 1 envelopes (dualloop 0.1) are read as snapshots. Nothing read is
 * trusted: a damaged history (a missing entry or task result, a range outside the transcript, a
 * wrong field) is `checkpoint_corrupt`, a newer format `checkpoint_future_version`, never a restart.
 */
import type { ActiveChange, CheckpointChange, CheckpointView } from '../contracts/checkpoint.js';
import { CHECKPOINT_VERSION } from '../contracts/checkpoint.js';
import type { TaskResult } from '../contracts/results.js';
import { EMPTY_PROGRESS, type ActiveTask, type WorkflowProgress } from '../contracts/workflow-protocol.js';
import { EnvelopeV1Schema } from './envelope-v1.js';
import { EntryV2Schema } from './entry-schema.js';
import { describeIssues, TaskResultSchema } from './progress-schema.js';
import { applyPieces } from './transcript-pieces.js';
import { runningTurns } from './entry-change.js';

export type CheckpointProblem = { readonly code: 'checkpoint_future_version' | 'checkpoint_corrupt'; readonly message: string };

/** The state at the point, and what the writer of a resumed run continues from. */
export interface RebuiltCheckpoint {
  readonly view: CheckpointView;
  /** The state came from a version 1 envelope: the next entry must carry a snapshot and every committed result. */
  readonly legacyBase: boolean;
  /** Entries after the snapshot the state was rebuilt from, and the running task's turns in that snapshot. */
  readonly sinceSnapshot: number;
  readonly snapshotTurns: number;
}

type Outcome = { readonly ok: true; readonly checkpoint: RebuiltCheckpoint | undefined } | { readonly ok: false; readonly problem: CheckpointProblem };

class Corrupt extends Error {
  constructor(
    readonly code: CheckpointProblem['code'],
    message: string,
  ) {
    super(message);
  }
}

/** Rebuilds the state a store's `loadCheckpoint` answer describes; `undefined` when the run has none. */
export function rebuildCheckpoint(raw: unknown, runId: string): Outcome {
  if (raw === undefined || raw === null) return { ok: true, checkpoint: undefined };
  try {
    return { ok: true, checkpoint: rebuild(asHistory(raw, runId), runId) };
  } catch (error) {
    if (error instanceof Corrupt) return { ok: false, problem: { code: error.code, message: error.message } };
    throw error;
  }
}

function corrupt(runId: string, detail: string): Corrupt {
  return new Corrupt('checkpoint_corrupt', `run ${runId}: checkpoint is corrupt (${detail}); the run was not restarted`);
}

/** A store of version 1 handed back one envelope; a version 2 store hands back `{ results, entries }`. */
function asHistory(raw: unknown, runId: string): { results: readonly unknown[]; entries: readonly unknown[] } {
  const value = raw as { results?: unknown; entries?: unknown; version?: unknown };
  if (typeof raw === 'object' && !Array.isArray(raw) && value.entries === undefined && value.version !== undefined) return { results: [], entries: [raw] };
  if (typeof raw !== 'object' || !Array.isArray(value.results) || !Array.isArray(value.entries) || value.entries.length === 0) {
    // A version number alone still says "newer dualloop" rather than "damaged".
    futureVersionCheck(value.version, runId);
    throw corrupt(runId, '(root): expected the checkpoint history { results, entries } of a CheckpointStore');
  }
  return { results: value.results, entries: value.entries };
}

function futureVersionCheck(version: unknown, runId: string): void {
  if (typeof version === 'number' && version > CHECKPOINT_VERSION) {
    throw new Corrupt(
      'checkpoint_future_version',
      `run ${runId}: checkpoint version ${version} was written by a newer dualloop (this one reads up to ${CHECKPOINT_VERSION}); upgrade dualloop to resume it`,
    );
  }
}

function rebuild(history: { results: readonly unknown[]; entries: readonly unknown[] }, runId: string): RebuiltCheckpoint {
  let state: WorkflowProgress = EMPTY_PROGRESS;
  let legacyBase = false;
  let sinceSnapshot = 0;
  let snapshotTurns = 0;
  let last: Omit<CheckpointView, 'progress'> | undefined;
  let tasksDone = 0;
  for (const raw of history.entries) {
    futureVersionCheck((raw as { version?: unknown } | null)?.version, runId);
    if ((raw as { version?: unknown } | null)?.version === 1) {
      const parsed = EnvelopeV1Schema().safeParse(raw);
      if (!parsed.success) throw corrupt(runId, describeIssues(parsed.error));
      if (parsed.data.runId !== runId) throw new Corrupt('checkpoint_corrupt', `run ${runId}: checkpoint belongs to run ${parsed.data.runId}`);
      const { progress, ...header } = parsed.data;
      state = progress as WorkflowProgress;
      tasksDone = progress.results.length;
      last = header;
      legacyBase = true;
      sinceSnapshot = 0;
      snapshotTurns = runningTurns(progress as WorkflowProgress);
      continue;
    }
    const parsed = EntryV2Schema().safeParse(raw);
    if (!parsed.success) throw corrupt(runId, describeIssues(parsed.error));
    const entry = parsed.data;
    if (entry.runId !== runId) throw new Corrupt('checkpoint_corrupt', `run ${runId}: checkpoint belongs to run ${entry.runId}`);
    if (last === undefined ? entry.snapshot === undefined && entry.sequence !== 1 : entry.sequence !== last.sequence + 1) {
      throw corrupt(runId, `checkpoint #${last === undefined ? 1 : last.sequence + 1} is missing before #${entry.sequence}`);
    }
    if (legacyBase && entry.snapshot === undefined) throw corrupt(runId, `checkpoint #${entry.sequence} follows a version 1 checkpoint without a snapshot`);
    if (entry.snapshot === undefined) {
      state = applyChange(state, entry.change as CheckpointChange, runId, entry.sequence);
      sinceSnapshot += 1;
    } else {
      state = { results: state.results, ...(entry.snapshot as Omit<WorkflowProgress, 'results'>) };
      legacyBase = false;
      sinceSnapshot = 0;
      snapshotTurns = runningTurns(state);
    }
    tasksDone = entry.tasksDone;
    last = { runId, version: entry.version, sequence: entry.sequence, kind: entry.kind, savedAt: entry.savedAt, eventSeq: entry.eventSeq };
  }
  const view = { ...last!, progress: { ...state, results: legacyBase ? state.results : committedResults(history.results, tasksDone, runId) } };
  return { view, legacyBase, sinceSnapshot, snapshotTurns };
}

function committedResults(raw: readonly unknown[], tasksDone: number, runId: string): TaskResult[] {
  if (raw.length < tasksDone) throw corrupt(runId, `task results ${raw.length + 1}–${tasksDone} are missing`);
  return raw.slice(0, tasksDone).map((result, index) => {
    const parsed = TaskResultSchema().safeParse(result);
    if (!parsed.success) throw corrupt(runId, describeIssues(parsed.error, `results.${index}`));
    return parsed.data as TaskResult;
  });
}

function applyChange(state: WorkflowProgress, change: CheckpointChange, runId: string, sequence: number): WorkflowProgress {
  const strategy = change.strategy === undefined ? state.strategy : change.strategy === null ? undefined : change.strategy;
  const next: { -readonly [K in keyof WorkflowProgress]: WorkflowProgress[K] } = {
    results: state.results,
    metrics: change.metrics ?? state.metrics,
    queues: change.queues,
    modelCallIndex: change.modelCallIndex,
    elapsedMs: change.elapsedMs,
  };
  if (strategy !== undefined) next.strategy = strategy;
  const active = change.active === undefined ? state.active : change.active === null ? undefined : applyActive(state.active, change.active, change, runId, sequence);
  if (active !== undefined) next.active = active;
  const branches = change.branches === undefined ? state.branches : applyBranches(state.branches ?? [], change.branches, change, runId, sequence);
  if (branches !== undefined && branches.length > 0) next.branches = branches;
  return next;
}

/** A graph's running tasks after an entry: each changed one applied to its previous state, in the order they started. */
function applyBranches(
  previous: readonly ActiveTask[],
  changes: Readonly<Record<string, ActiveChange | null>>,
  workflow: CheckpointChange,
  runId: string,
  sequence: number,
): ActiveTask[] {
  const next: ActiveTask[] = [];
  for (const active of previous) {
    const change = changes[active.task.id];
    if (change === null) continue;
    next.push(change === undefined ? active : applyActive(active, change, workflow, runId, sequence));
  }
  for (const [id, change] of Object.entries(changes)) {
    if (change === null || previous.some((active) => active.task.id === id)) continue;
    next.push(applyActive(undefined, change, workflow, runId, sequence));
  }
  return next;
}

function applyActive(previous: ActiveTask | undefined, change: ActiveChange, workflow: CheckpointChange, runId: string, sequence: number): ActiveTask {
  const task = change.task ?? previous?.task;
  if (task === undefined) throw corrupt(runId, `checkpoint #${sequence} continues a task, but no task is running before it`);
  const before = change.task === undefined ? previous!.point.progress : undefined;
  const messages = applyPieces(before?.messages ?? [], change.messages);
  if (typeof messages === 'string') throw corrupt(runId, `checkpoint #${sequence}: ${messages}`);
  const turnsBefore = before?.turns ?? [];
  if (change.turns.keep > turnsBefore.length) throw corrupt(runId, `checkpoint #${sequence} keeps ${change.turns.keep} turns of ${turnsBefore.length}`);
  const progress = {
    messages,
    turns: [...turnsBefore.slice(0, change.turns.keep), ...change.turns.add],
    toolCalls: change.toolCalls,
    usage: change.usage,
    costUsd: change.costUsd,
    elapsedMs: change.elapsedMs,
    repeat: change.repeat,
    followUpDue: change.followUpDue,
    ...(change.pending === undefined ? {} : { pending: change.pending }),
    ...(change.outputRepairs === undefined ? {} : { outputRepairs: change.outputRepairs }),
  };
  return { task, point: { progress, queues: change.queues ?? workflow.queues, delivered: change.delivered, modelCallIndex: change.modelCallIndex } };
}
