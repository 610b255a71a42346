/**
 * Where a run can be forked from (ADR/0220): the points of its checkpoint history, found from
 * `listCheckpoints` alone (no entry body is read). Pure functions.
 *
 * - Task point N (before task N starts, its policy gate included): the empty start for N = 1;
 *   otherwise the first `task` entry that committed task N − 1 (`tasksDone` = N − 1, its task
 *   not halted). `{ task: N, turn: 1 }` is the same point.
 * - Turn point N:T with T ≥ 2 (before turn T of task N starts): the first `turn` entry of task N
 *   after turn T − 1 — NEXT_TURN writes one after every turn a task goes on from.
 * Entries a task halted with (parked, cancelled, failed) and strategy picks are not points: the
 * state they hold is mid-turn or already a point above.
 */
import type { CheckpointIndexEntry } from '../contracts/checkpoint.js';
import { formatForkPoint, type ForkPoint } from '../contracts/fork.js';

/** The entry a point starts from: its sequence, or 0 for the empty start of a run. */
export type ForkPoints = ReadonlyMap<string, number>;

export function forkPoints(entries: readonly CheckpointIndexEntry[], taskCount: number): ForkPoints {
  const points = new Map<string, number>();
  const add = (key: string, sequence: number) => {
    if (!points.has(key)) points.set(key, sequence);
  };
  let lastTask = taskCount;
  for (const entry of entries) {
    if (entry.taskIndex !== undefined) lastTask = Math.max(lastTask, entry.taskIndex + 1);
  }
  if (lastTask > 0) add('1', 0);
  for (const entry of entries) {
    if (entry.kind === 'turn' && entry.taskIndex !== undefined && entry.turn !== undefined) {
      add(formatForkPoint({ task: entry.taskIndex + 1, turn: entry.turn + 1 }), entry.sequence);
    } else if (entry.kind === 'task' && (entry.taskIndex === undefined || entry.taskIndex === entry.tasksDone - 1) && entry.tasksDone < lastTask) {
      add(String(entry.tasksDone + 1), entry.sequence);
    }
  }
  return points;
}

/** The sequence a point starts from, or `undefined` when the history has no such point. */
export function findForkPoint(points: ForkPoints, at: ForkPoint): number | undefined {
  return points.get(formatForkPoint(at.turn === 1 ? { task: at.task } : at));
}

/** The valid points, for the error a missing one gets: `task 1 (turns 1–3), task 2 (turns 1–4), task 3 (turn 1)`. */
export function describeForkPoints(points: ForkPoints): string {
  const turns = new Map<number, number[]>();
  for (const key of points.keys()) {
    const [task, turn] = key.split(':').map(Number) as [number, number | undefined];
    const list = turns.get(task) ?? [];
    list.push(turn ?? 1);
    turns.set(task, list);
  }
  if (turns.size === 0) return 'none (the run has no task)';
  return [...turns.entries()]
    .sort(([a], [b]) => a - b)
    .map(([task, list]) => `task ${task} (${describeTurns(list.sort((a, b) => a - b))})`)
    .join(', ');
}

function describeTurns(turns: readonly number[]): string {
  const ranges: string[] = [];
  let start = turns[0]!;
  let previous = start;
  for (const turn of [...turns.slice(1), Number.NaN]) {
    if (turn === previous + 1) {
      previous = turn;
      continue;
    }
    ranges.push(start === previous ? String(start) : `${start}–${previous}`);
    start = turn;
    previous = turn;
  }
  return `${turns.length === 1 ? 'turn' : 'turns'} ${ranges.join(', ')}`;
}
