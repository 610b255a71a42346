import { CHECKPOINT_VERSION, type CheckpointEnvelope } from '../contracts/store.js';
import type { WorkflowProgress } from '../contracts/workflow-protocol.js';
import type { RunRuntime } from '../kernel/run-runtime.js';

/** The next checkpoint envelope of a run: numbers it and ties it to the last event emitted. */
export function nextEnvelope(run: RunRuntime, kind: CheckpointEnvelope['kind'], progress: WorkflowProgress, savedAt: number): CheckpointEnvelope {
  run.checkpointSequence += 1;
  return { version: CHECKPOINT_VERSION, runId: run.runId, kind, sequence: run.checkpointSequence, savedAt, eventSeq: run.events.lastSeq, progress };
}
