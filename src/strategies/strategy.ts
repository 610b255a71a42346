import { z } from 'zod';
import type { TaskSourceInput, TaskSourceOutput } from '../contracts/workflow-protocol.js';
import type { TaskResult } from '../contracts/results.js';
import type { KernelDeps } from '../kernel/kernel-deps.js';
import type { RunRuntime } from '../kernel/run-runtime.js';
import type { StopCandidate } from '../stop/inner-conditions.js';
import type { OuterCheck } from '../stop/outer-conditions.js';

/** The loop strategies (docs/strategies.md); `react` is the default. */
export const StrategyName = z.enum(['react', 'plan_execute', 'hybrid', 'auto']);
export type StrategyName = z.infer<typeof StrategyName>;

/**
 * Where the outer loop's next task comes from (TASK_SELECT). `react` walks the fixed list; the
 * plan strategies ask a planner. A strategy's own state (plans, replans used) travels in the
 * workflow context as `strategy` and is checkpointed with it; it comes back from a checkpoint as
 * `unknown`, so a strategy validates it before use.
 *
 * `next` must not throw for a model or planning failure: it answers `{ kind: 'stop' }` with an
 * `error` StopCondition naming the problem (a throw ends the run `error` as "task source failed").
 */
export interface TaskStrategy {
  readonly name: string;
  next(input: TaskSourceInput, run: RunRuntime, deps: KernelDeps, signal: AbortSignal): Promise<TaskSourceOutput>;
  /** Tasks still to run after `results`, or `undefined` when the strategy cannot tell yet. */
  remaining(results: readonly TaskResult[], state: unknown, run: RunRuntime): number | undefined;
  /**
   * The halt rule at NEXT_TASK, replacing the default (`haltedByTask`: a task that did not
   * complete stops the workflow with its reason). Plan strategies return nothing for a step they
   * will replan, so that the next TASK_SELECT can replan it.
   */
  halted?(check: OuterCheck, state: unknown): StopCandidate | undefined;
}
