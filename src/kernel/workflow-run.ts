import type { AnyActorRef } from 'xstate';
import type { KernelEvent } from '../contracts/events.js';
import type { WorkflowResult } from '../contracts/results.js';
import type { TaskOutputs } from '../contracts/task-outputs.js';

/** Whom a steering or follow-up message is for: one task (a graph's, by id), or whichever runs. */
export interface MessageOptions {
  readonly taskId?: string;
}

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
  /**
   * Delivered after the current tool batch, before the next model call. In a graph, to every
   * running task (or, when none runs, the next that starts), or to `taskId` alone (docs/steering.md).
   */
  steer(message: string, options?: MessageOptions): void;
  /** Delivered when the model would stop; it then goes on. Addressed as `steer`. */
  followUp(message: string, options?: MessageOptions): void;
  clearSteering(): void;
  clearFollowUp(): void;
  clearAllQueues(): void;
}
