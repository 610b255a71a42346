/**
 * What a checkpoint entry records: the change from the last durable state to the new one, and
 * (now and then) a snapshot of the new one (ADR/0120). Lists are compared by object identity —
 * the machines rebuild arrays but keep the objects they keep — so a turn's change holds only its
 * new messages and turn result, whatever the length of the task or the run.
 */
import type { ActiveChange, CheckpointChange, CheckpointSnapshot } from '../contracts/checkpoint.js';
import type { TurnResult } from '../contracts/results.js';
import type { ActiveTask, WorkflowProgress } from '../contracts/workflow-protocol.js';
import { transcriptPieces } from './transcript-pieces.js';

/** The change that turns `before` into `after` (committed task results aside: the entry carries those). */
export function changeBetween(before: WorkflowProgress, after: WorkflowProgress): CheckpointChange {
  const change: { -readonly [K in keyof CheckpointChange]: CheckpointChange[K] } = {
    modelCallIndex: after.modelCallIndex,
    elapsedMs: after.elapsedMs,
    queues: after.queues,
  };
  if (after.metrics !== before.metrics) change.metrics = after.metrics;
  if (after.strategy !== before.strategy) change.strategy = after.strategy ?? null;
  if (after.active !== before.active) change.active = after.active === undefined ? null : activeChange(before.active, after.active, after);
  if (after.branches !== before.branches) {
    const branches = branchChanges(before.branches ?? [], after.branches ?? [], after);
    if (branches !== undefined) change.branches = branches;
  }
  return change;
}

/** A graph's running tasks that changed (by identity), by id; `null` for one that no longer runs. */
function branchChanges(before: readonly ActiveTask[], after: readonly ActiveTask[], workflow: WorkflowProgress): Record<string, ActiveChange | null> | undefined {
  const previous = new Map(before.map((active) => [active.task.id, active]));
  const changes: Record<string, ActiveChange | null> = {};
  let changed = false;
  for (const active of after) {
    const old = previous.get(active.task.id);
    previous.delete(active.task.id);
    if (old === active) continue;
    changes[active.task.id] = activeChange(old, active, workflow);
    changed = true;
  }
  for (const id of previous.keys()) {
    changes[id] = null;
    changed = true;
  }
  return changed ? changes : undefined;
}

function activeChange(before: ActiveTask | undefined, after: ActiveTask, workflow: WorkflowProgress): ActiveChange {
  // The lists of the same task change from its previous ones; another task starts from empty lists.
  const previous = before !== undefined && before.task === after.task ? before.point.progress : undefined;
  const { progress, queues } = after.point;
  const keep = keptPrefix(previous?.turns ?? [], progress.turns);
  return {
    ...(previous === undefined ? { task: after.task } : {}),
    messages: transcriptPieces(previous?.messages ?? [], progress.messages),
    turns: { keep, add: progress.turns.slice(keep) },
    toolCalls: progress.toolCalls,
    usage: progress.usage,
    costUsd: progress.costUsd,
    elapsedMs: progress.elapsedMs,
    repeat: progress.repeat,
    followUpDue: progress.followUpDue,
    ...(progress.pending === undefined ? {} : { pending: progress.pending }),
    ...(progress.outputRepairs === undefined ? {} : { outputRepairs: progress.outputRepairs }),
    ...(queues === workflow.queues ? {} : { queues }),
    delivered: after.point.delivered,
    modelCallIndex: after.point.modelCallIndex,
  };
}

/** How many leading turn results `next` shares (by identity) with `previous`. */
function keptPrefix(previous: readonly TurnResult[], next: readonly TurnResult[]): number {
  const limit = Math.min(previous.length, next.length);
  let kept = 0;
  while (kept < limit && previous[kept] === next[kept]) kept += 1;
  return kept;
}

/** The whole state, committed task results aside. */
export function snapshotOf(progress: WorkflowProgress): CheckpointSnapshot {
  return {
    metrics: progress.metrics,
    queues: progress.queues,
    modelCallIndex: progress.modelCallIndex,
    elapsedMs: progress.elapsedMs,
    ...(progress.strategy === undefined ? {} : { strategy: progress.strategy }),
    ...(progress.active === undefined ? {} : { active: progress.active }),
    ...(progress.branches === undefined || progress.branches.length === 0 ? {} : { branches: progress.branches }),
  };
}

/** The turns the running tasks hold: what a resume replays after the last snapshot, at most. */
export function runningTurns(progress: WorkflowProgress): number {
  if (progress.active !== undefined) return progress.active.point.progress.turns.length;
  return (progress.branches ?? []).reduce((turns, active) => turns + active.point.progress.turns.length, 0);
}
