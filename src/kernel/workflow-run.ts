import type { AnyActorRef } from 'xstate';
import type { KernelEvent } from '../contracts/events.js';
import type { WorkflowResult } from '../contracts/results.js';
import type { TaskOutputs } from '../contracts/task-outputs.js';

/**
 * A running workflow. Iterate it for its events (`for await (const event of run)`); await
 * `result` for the outcome, which always resolves — a failed model, tool, store or gate ends the
 * run with a StopCondition, never a rejection. `Outputs`: the tasks' output types by id, when
 * `start()` was given the tasks as a literal (`taskOutput(result, id)`).
 */
export interface WorkflowRun<Outputs extends TaskOutputs = TaskOutputs> extends AsyncIterable<KernelEvent> {
  readonly runId: string;
  readonly result: Promise<WorkflowResult<Outputs>>;
  /** The root XState actor (the workflow machine), for inspection and `getSnapshot()`. */
  readonly actor: AnyActorRef;
  /** Pre-emptive: the in-flight model call and tools see their AbortSignal; the run ends `context_canceled`. */
  abort(reason?: string): void;
  /** Delivered after the current tool batch, before the next model call. */
  steer(message: string): void;
  /** Delivered when the model would stop; it then goes on. */
  followUp(message: string): void;
  clearSteering(): void;
  clearFollowUp(): void;
  clearAllQueues(): void;
}
