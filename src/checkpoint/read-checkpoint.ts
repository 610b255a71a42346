import type { CheckpointView } from '../contracts/checkpoint.js';
import type { CheckpointStore } from '../contracts/store.js';
import { RunError } from '../errors.js';
import { rebuildCheckpoint, type RebuiltCheckpoint } from './read-checkpoints.js';

/** Rebuilds what a store answered, or throws the RunError a resume would reject with. */
export function rebuiltOrThrow(raw: unknown, runId: string): RebuiltCheckpoint | undefined {
  const outcome = rebuildCheckpoint(raw, runId);
  if (!outcome.ok) throw new RunError({ code: outcome.problem.code, runId, message: outcome.problem.message });
  return outcome.checkpoint;
}

/**
 * A run's state at its latest checkpoint, or at the entry `at.sequence` of its history (see
 * `listCheckpoints`), rebuilt and validated as a resume would: `undefined` when the run has no
 * checkpoint there; `RunError checkpoint_corrupt` or `checkpoint_future_version` when it cannot
 * be read.
 */
export async function readCheckpoint(store: CheckpointStore, runId: string, at?: { readonly sequence: number }): Promise<CheckpointView | undefined> {
  return rebuiltOrThrow(await store.loadCheckpoint(runId, at), runId)?.view;
}
