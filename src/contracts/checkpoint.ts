/**
 * Checkpoint format version 2: a run's checkpoints are an append-only history of entries
 * (ADR/0120). Each entry records what changed since the previous one — a turn's new messages,
 * tool results and counters; a task's result, written once — so its size does not depend on how
 * long the run is. Now and then an entry also carries a snapshot of the whole state, so that a
 * resume (or a fork at any point) reads the latest snapshot at or before the point and the
 * entries after it. Nothing is overwritten.
 */
import type { Message } from './messages.js';
import type { MessageQueues } from './queues.js';
import type { TaskResult, TurnResult, WorkflowMetrics } from './results.js';
import type { TaskSpec, TurnProgress } from './turn-protocol.js';
import type { ActiveTask, WorkflowProgress } from './workflow-protocol.js';

/**
 * Current version of checkpoint entries: a list run writes version 2, a graph run version 3 (its
 * entries hold several running tasks in `branches`, which a reader of version 2 would drop);
 * version 1 (whole-progress envelopes) is still read.
 */
export const CHECKPOINT_VERSION = 3;

/** The version a list run writes (what dualloop wrote before graphs, unchanged). */
export const LIST_CHECKPOINT_VERSION = 2;

/**
 * One piece of a transcript in an entry: a range `[from, to)` of the running task's transcript as
 * the previous entry left it (kept), or a new message. A turn that only appends is
 * `[[0, n], ...newMessages]`; a compaction keeps ranges and inserts its note.
 */
export type TranscriptPiece = readonly [from: number, to: number] | Message;

/**
 * How an entry changes the running task's resume point: its counters (everything in
 * `TurnProgress` but the lists) in full, its lists as changes.
 */
export interface ActiveChange extends Omit<TurnProgress, 'messages' | 'turns'> {
  /** Present when this task is not the one the previous entry left running: its spec, and the lists start empty. */
  readonly task?: TaskSpec;
  readonly messages: readonly TranscriptPiece[];
  /** The turn results: the first `keep` of the previous ones, then `add`. */
  readonly turns: { readonly keep: number; readonly add: readonly TurnResult[] };
  /** The task's queues when they are not the workflow's (`queues` of the change). */
  readonly queues?: MessageQueues;
  readonly delivered: readonly number[];
  readonly modelCallIndex: number;
}

/** What an entry changes in the run's state; absent fields are unchanged. */
export interface CheckpointChange {
  readonly modelCallIndex: number;
  /** The workflow's active runtime so far. */
  readonly elapsedMs: number;
  readonly queues: MessageQueues;
  readonly metrics?: WorkflowMetrics;
  /** The strategy's state; `null` clears it. */
  readonly strategy?: unknown;
  /** `null`: no task is running after this entry; absent: the running task is unchanged. */
  readonly active?: ActiveChange | null;
  /** A graph run (version 3): each running task that changed, by id; `null`: it no longer runs. */
  readonly branches?: Readonly<Record<string, ActiveChange | null>>;
}

/** The whole state after an entry, committed task results aside (a store keeps those by position). */
export interface CheckpointSnapshot {
  readonly metrics: WorkflowMetrics;
  readonly queues: MessageQueues;
  readonly modelCallIndex: number;
  readonly elapsedMs: number;
  readonly strategy?: unknown;
  readonly active?: ActiveTask;
  /** A graph run (version 3): every running (or halted) task. */
  readonly branches?: readonly ActiveTask[];
}

/**
 * `turn`: after a completed turn that the task goes on from (NEXT_TURN); `task`: after a task
 * ended (CHECKPOINT); `select`: a strategy planned or chose at TASK_SELECT.
 */
export type CheckpointKind = 'turn' | 'task' | 'select';

/** One entry of a run's checkpoint history, as the kernel hands it to `CheckpointStore.saveCheckpoint`. */
export interface CheckpointEntry {
  readonly version: typeof LIST_CHECKPOINT_VERSION | typeof CHECKPOINT_VERSION;
  readonly runId: string;
  /** 1, 2, 3, … per run, across resumes: a store refuses one that is not after the run's last. */
  readonly sequence: number;
  readonly kind: CheckpointKind;
  readonly savedAt: number;
  /** `seq` of the last event emitted before this entry. */
  readonly eventSeq: number;
  /** The task the run is in (or last finished) after this entry, and for a turn entry the turn. */
  readonly position: { readonly taskId?: string; readonly taskIndex?: number; readonly turn?: number };
  /** Task results committed so far, this entry's included. */
  readonly tasksDone: number;
  /**
   * The task results this entry commits, at positions `tasksDone − results.length` … `tasksDone − 1`.
   * A store keeps them by position (each is written once) and may leave them out of the stored entry.
   */
  readonly results: readonly TaskResult[];
  readonly change: CheckpointChange;
  /** Present when the kernel takes a snapshot here: the state after this entry. */
  readonly snapshot?: CheckpointSnapshot;
}

/**
 * What `loadCheckpoint` hands back, as stored (the kernel validates it): the committed results at
 * the point (positions 0 … its `tasksDone` − 1, in order) and the entries from the latest one with
 * a snapshot at or before the point (from the first entry when there is none) up to the point.
 * A store that kept a version 1 envelope returns it as the first entry.
 */
export interface StoredCheckpoints {
  readonly results: readonly unknown[];
  readonly entries: readonly unknown[];
}

/** One line of a run's checkpoint history without its body: where a fork or a viewer can go back to. */
export interface CheckpointIndexEntry {
  readonly sequence: number;
  readonly kind: CheckpointKind;
  readonly version: number;
  readonly savedAt: number;
  readonly eventSeq: number;
  readonly taskId?: string;
  readonly taskIndex?: number;
  readonly turn?: number;
  readonly tasksDone: number;
  readonly snapshot: boolean;
}

/** A checkpoint read back and rebuilt: the run's state at one entry of its history. */
export interface CheckpointView {
  readonly runId: string;
  readonly version: number;
  readonly sequence: number;
  readonly kind: CheckpointKind;
  readonly savedAt: number;
  readonly eventSeq: number;
  readonly progress: WorkflowProgress;
}
