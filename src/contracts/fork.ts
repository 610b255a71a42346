/**
 * Time travel (docs/time-travel.md, ADR/0220): a fork is a new run that starts from a point in
 * another run's checkpoint history. Everything before the point is taken from the record;
 * everything from the point on runs fresh.
 */
import type { BoundsOverride } from './bounds.js';
import type { Message } from './messages.js';

/**
 * A point in a run's history, numbered as people count: `{ task: 3 }` is before the third task
 * starts (its policy gate included), `{ task: 3, turn: 6 }` before the sixth turn of the third
 * task starts. `{ task: N, turn: 1 }` is the same point as `{ task: N }`.
 */
export interface ForkPoint {
  readonly task: number;
  readonly turn?: number;
}

/** What a forked run records about where it came from (`RunRecord.forkOf`). */
export interface ForkOrigin {
  readonly runId: string;
  readonly at: ForkPoint;
  /**
   * A graph's fork: the tasks that run again (the forked task and everything downstream of it);
   * every other task's result is the source's. Carried by the fork's `workflow_start` event.
   */
  readonly rerun?: readonly string[];
}

/** Changes to the state at the point; everything else is the source's state there. */
export interface ForkEdit {
  /**
   * Replaces the running task's transcript — what the next model call sees, system message
   * included. Only at a turn point (`{ task, turn }` with turn ≥ 2), where a task is running.
   */
  readonly messages?: readonly Message[];
  /** A user message added before the next model call (at a task point: after the task's own message). */
  readonly message?: string;
  /** Replaces the messages waiting in the steering and follow-up queues at the point; a queue not named is kept. */
  readonly pendingMessages?: { readonly steering?: readonly string[]; readonly followUp?: readonly string[] };
  /**
   * Bounds for the rest of the run: `inner` applies to the running task and every later task,
   * `outer` to the whole fork. Counters continue from their values at the point.
   */
  readonly bounds?: BoundsOverride;
}

export interface ForkOptions {
  /** The point; `task` may also be a task id (`'task-3'`), recorded as its number. */
  readonly at: ForkPoint | { readonly task: string; readonly turn?: number };
  readonly edit?: ForkEdit;
  /** The new run's id (default `run-<uuid>`). */
  readonly runId?: string;
  readonly signal?: AbortSignal;
  /** Fork although this kernel's workflow differs from the source's (a `workflow_changed` event records it); else RunError `workflow_changed`. */
  readonly acceptChange?: boolean;
}

/** `3` or `3:6`: how the CLI, `dualloop runs` and the viewer write a point. */
export function formatForkPoint(at: ForkPoint): string {
  return at.turn === undefined ? String(at.task) : `${at.task}:${at.turn}`;
}
