import type { TaskSourceInput, TaskSourceOutput } from '../contracts/workflow-protocol.js';
import type { TaskResult } from '../contracts/results.js';
import type { KernelDeps } from '../kernel/kernel-deps.js';
import type { RunRuntime } from '../kernel/run-runtime.js';

/**
 * Where the outer loop's next task comes from (TASK_SELECT). `react` walks the fixed list; the
 * plan strategies ask a planner. A strategy's own state (plans, replans used) travels in the
 * workflow context as `strategy` and is checkpointed with it.
 */
export interface TaskStrategy {
  readonly name: string;
  next(input: TaskSourceInput, run: RunRuntime, deps: KernelDeps, signal: AbortSignal): Promise<TaskSourceOutput>;
  /** Tasks still to run after `results`, or `undefined` when the strategy cannot tell yet. */
  remaining(results: readonly TaskResult[], state: unknown, run: RunRuntime): number | undefined;
}
