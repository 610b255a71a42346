// What every store checks and answers about a checkpoint history, in one place (ADR/0120).
import type { CheckpointEntry, CheckpointIndexEntry } from '../contracts/checkpoint.js';

/** Why an entry's results cannot be appended after `committed` results, or nothing when they can. */
export function resultsRefusal(entry: CheckpointEntry, committed: number): string | undefined {
  const first = entry.tasksDone - entry.results.length;
  if (first === committed) return undefined;
  return `checkpoint #${entry.sequence} commits task results from position ${first}, but ${committed} are committed`;
}

/** The index line of an entry: where it is in the run, without its body. */
export function indexEntry(entry: CheckpointEntry): CheckpointIndexEntry {
  const { taskId, taskIndex, turn } = entry.position;
  return {
    sequence: entry.sequence,
    kind: entry.kind,
    version: entry.version,
    savedAt: entry.savedAt,
    eventSeq: entry.eventSeq,
    ...(taskId === undefined ? {} : { taskId }),
    ...(taskIndex === undefined ? {} : { taskIndex }),
    ...(turn === undefined ? {} : { turn }),
    tasksDone: entry.tasksDone,
    snapshot: entry.snapshot !== undefined,
  };
}
