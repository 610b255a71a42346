/**
 * The one module that writes a run's checkpoints (ADR/0120). The machines emit intents — a turn
 * went on (NEXT_TURN), a task ended (CHECKPOINT), a strategy planned (TASK_SELECT) — and the
 * writer turns each into the next entry of the run's history: it numbers the entries, computes
 * each one's change against the last durable state, decides when to add a snapshot, and hands
 * the entries to the store one at a time, in order. A store that answers synchronously is written
 * before the intent returns; one that answers with promises gets the next entry only after the
 * previous one settled. A failed write leaves the durable state as it was, so the next entry
 * still describes the change from what the store holds.
 */
import { CHECKPOINT_VERSION, LIST_CHECKPOINT_VERSION, type CheckpointEntry, type CheckpointKind } from '../contracts/checkpoint.js';
import type { TaskResult } from '../contracts/results.js';
import type { CheckpointStore, MaybePromise } from '../contracts/store.js';
import { FailureError } from '../errors.js';
import type { TurnCheckpoint } from '../contracts/turn-protocol.js';
import { EMPTY_PROGRESS, type ActiveTask, type WorkflowProgress } from '../contracts/workflow-protocol.js';
import { changeBetween, runningTurns, snapshotOf } from './entry-change.js';
import type { RebuiltCheckpoint } from './read-checkpoints.js';

/**
 * A turn entry carries a snapshot when at least this many entries, and at least as many as the
 * running task had turns at the last snapshot, came after that snapshot: snapshots double in
 * spacing as a task grows, so their bytes stay within the turn entries' own, and a resume reads
 * one snapshot and at most this many entries (or the task's length) after it.
 */
export const SNAPSHOT_MIN_ENTRIES = 64;

export interface CheckpointWriterOptions {
  readonly runId: string;
  readonly store: CheckpointStore;
  readonly now: () => number;
  /** The seq of the last event the run emitted. */
  readonly lastEventSeq: () => number;
  /** Where a resumed run continues from; a new run starts empty. */
  readonly base?: RebuiltCheckpoint;
  /** The progress the run starts from (a resume's, with queue changes replayed); turn entries extend it. */
  readonly progress?: WorkflowProgress;
  /** A graph run: several tasks run at once, each in `branches` (version 3 entries, ADR/0420). */
  readonly graph?: boolean;
}

type Position = CheckpointEntry['position'];

interface Intent {
  readonly kind: CheckpointKind;
  readonly target: WorkflowProgress;
  readonly position: Position;
  readonly savedAt: number;
  readonly eventSeq: number;
  /** Carry a snapshot whatever the spacing rule says. */
  readonly snapshot: boolean;
}

export class CheckpointWriter {
  /** The workflow as of the last task boundary or strategy pick: what each turn entry extends. */
  private workflow: WorkflowProgress;
  /** The state the store holds, as of the last entry it accepted. */
  private durable: WorkflowProgress;
  private sequence: number;
  private legacyBase: boolean;
  private sinceSnapshot: number;
  private snapshotTurns: number;
  private tail: Promise<unknown> | undefined;
  /** A graph's running tasks as their last turn entries left them, by id. */
  private readonly latest = new Map<string, ActiveTask>();

  constructor(private readonly options: CheckpointWriterOptions) {
    const { base } = options;
    this.durable = base?.view.progress ?? EMPTY_PROGRESS;
    this.workflow = options.progress ?? this.durable;
    this.sequence = base?.view.sequence ?? 0;
    this.legacyBase = base?.legacyBase ?? false;
    this.sinceSnapshot = base?.sinceSnapshot ?? 0;
    this.snapshotTurns = base?.snapshotTurns ?? 0;
  }

  /** NEXT_TURN: the running task after a turn it goes on from. Answers the entry's `sequence`, as every write does. */
  turn(checkpoint: TurnCheckpoint): MaybePromise<number> {
    const { point, task } = checkpoint;
    const base = this.workflow;
    if (this.options.graph === true) {
      this.latest.set(task.id, { task, point });
      const target: WorkflowProgress = {
        ...base,
        modelCallIndex: Math.max(base.modelCallIndex, point.modelCallIndex),
        elapsedMs: Math.max(this.durable.elapsedMs, base.elapsedMs + point.progress.elapsedMs),
        branches: this.branchesOf(base.branches ?? []),
      };
      return this.submit('turn', target, turnPosition(checkpoint));
    }
    const target: WorkflowProgress = {
      results: base.results,
      metrics: base.metrics,
      queues: point.queues,
      modelCallIndex: point.modelCallIndex,
      elapsedMs: base.elapsedMs + point.progress.elapsedMs,
      active: { task, point },
      ...(base.strategy === undefined ? {} : { strategy: base.strategy }),
    };
    return this.submit('turn', target, turnPosition(checkpoint));
  }

  /**
   * CHECKPOINT: the workflow after a task ended; `task` is its result. A graph's progress lists
   * its running tasks as they started, and `halted` the ones that stopped for a resumable reason
   * (their points are final): the running ones are kept as their last turn entries left them.
   */
  task(progress: WorkflowProgress, task: TaskResult, halted: readonly string[] = []): MaybePromise<number> {
    const kept = progress.branches ?? [];
    if (this.options.graph === true) {
      for (const id of [...this.latest.keys()]) if (!kept.some((active) => active.task.id === id)) this.latest.delete(id);
      for (const active of kept) if (halted.includes(active.task.id)) this.latest.set(active.task.id, active);
      const { branches: _started, ...rest } = progress;
      const branches = this.branchesOf(kept);
      progress = branches.length === 0 ? rest : { ...rest, branches };
    }
    this.workflow = progress;
    return this.submit('task', progress, { taskId: task.taskId, taskIndex: task.index });
  }

  /** The running tasks: those of the last task boundary and those started since, each as its last turn entry left it. */
  private branchesOf(known: readonly ActiveTask[]): readonly ActiveTask[] {
    const branches = known.map((active) => this.latest.get(active.task.id) ?? active);
    for (const active of this.latest.values()) if (!known.some((other) => other.task.id === active.task.id)) branches.push(active);
    // Unchanged, the same list: an entry that changes no branch records none.
    const previous = this.durable.branches ?? [];
    return branches.length === previous.length && branches.every((active, index) => active === previous[index]) ? previous : branches;
  }

  /**
   * TASK_SELECT: a strategy's new state (a plan, what its model calls spent). Turn entries carry it
   * from now on; `save` writes it at once (a model was called: a resume must not plan again).
   */
  select(progress: WorkflowProgress, save: boolean): MaybePromise<number | undefined> {
    this.workflow = progress;
    return save ? this.submit('select', progress, {}) : undefined;
  }

  /**
   * The first entry of a forked run (kernel.fork): the state at the fork point, as a snapshot, so
   * that the fork's history stands on its own and is a fork point itself — a `turn` entry after
   * the running task's last turn, or a `task` entry after the last committed task.
   */
  forkStart(progress: WorkflowProgress): MaybePromise<number> {
    this.workflow = progress;
    const { active } = progress;
    const last = progress.results[progress.results.length - 1];
    if (active !== undefined) {
      return this.submit('turn', progress, { taskId: active.task.id, taskIndex: active.task.index, turn: active.point.progress.turns.length }, true);
    }
    return this.submit('task', progress, last === undefined ? {} : { taskId: last.taskId, taskIndex: last.index }, true);
  }

  private submit(kind: CheckpointKind, target: WorkflowProgress, position: Position, snapshot = false): MaybePromise<number> {
    const intent: Intent = { kind, target, position, savedAt: this.options.now(), eventSeq: this.options.lastEventSeq(), snapshot };
    if (this.tail === undefined) {
      const written = this.write(intent);
      if (written instanceof Promise) this.track(written);
      return written;
    }
    // An earlier entry is still on its way to the store: this one follows it, whatever its outcome.
    const written = this.tail.then(() => this.write(intent));
    this.track(written);
    return written;
  }

  private track(written: Promise<number>): void {
    const settled = written.then(
      () => undefined,
      () => undefined,
    );
    this.tail = settled;
    void settled.then(() => {
      if (this.tail === settled) this.tail = undefined;
    });
  }

  private write(intent: Intent): MaybePromise<number> {
    const entry = this.entryFor(intent);
    const pending = this.options.store.saveCheckpoint(entry);
    if (pending instanceof Promise) return pending.then(() => this.accepted(entry, intent.target));
    return this.accepted(entry, intent.target);
  }

  private entryFor({ kind, target, position, savedAt, eventSeq, snapshot: forced }: Intent): CheckpointEntry {
    const committed = this.durable.results.length;
    if (target.results.length < committed) {
      throw new FailureError({
        code: 'internal_error',
        message: `internal: run ${this.options.runId} would un-commit task results (${target.results.length} < ${committed})`,
      });
    }
    const snapshot = forced || this.legacyBase || kind !== 'turn' || this.sinceSnapshot + 1 >= Math.max(SNAPSHOT_MIN_ENTRIES, this.snapshotTurns);
    return {
      version: this.options.graph === true ? CHECKPOINT_VERSION : LIST_CHECKPOINT_VERSION,
      runId: this.options.runId,
      sequence: this.sequence + 1,
      kind,
      savedAt,
      eventSeq,
      position,
      tasksDone: target.results.length,
      // After a version 1 checkpoint the store holds no result by position yet: this entry writes them all.
      results: this.legacyBase ? target.results : target.results.slice(committed),
      change: changeBetween(this.durable, target),
      ...(snapshot ? { snapshot: snapshotOf(target) } : {}),
    };
  }

  private accepted(entry: CheckpointEntry, target: WorkflowProgress): number {
    this.durable = target;
    this.sequence = entry.sequence;
    this.legacyBase = false;
    if (entry.snapshot === undefined) {
      this.sinceSnapshot += 1;
    } else {
      this.sinceSnapshot = 0;
      this.snapshotTurns = runningTurns(target);
    }
    return entry.sequence;
  }
}

/**
 * Where a turn entry is: after its task's last completed turn — or, for a turn saved at ACT before
 * a delegated run starts (its model answer pending), in no turn: it is no fork point.
 */
function turnPosition({ task, point }: TurnCheckpoint): CheckpointEntry['position'] {
  const turn = point.progress.pending === undefined ? { turn: point.progress.turns.length } : {};
  return { taskId: task.id, taskIndex: task.index, ...turn };
}
