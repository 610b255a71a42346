import { z } from 'zod';
import type { CheckpointWriter } from '../checkpoint/checkpoint-writer.js';
import type { Bounds } from '../contracts/bounds.js';
import type { Clock } from '../contracts/clock.js';
import type { KernelEventBody } from '../contracts/events.js';
import type { Limits } from '../contracts/limits.js';
import type { Model, RateLimit } from '../contracts/model.js';
import type { TaskResult } from '../contracts/results.js';
import type { StopCandidate } from '../contracts/stop.js';
import type { TaskSpec } from '../contracts/turn-protocol.js';
import type { TaskSourceInput, TaskSourceOutput } from '../contracts/workflow-protocol.js';
import type { OuterCheck } from '../stop/outer-conditions.js';
import type { RunToolCatalog } from '../tools/run-tools.js';
import type { RateWindow } from '../providers/rate-limited-call.js';
import type { ResolvedAutoRules } from './auto-rules.js';

/** The loop strategies (docs/strategies.md); `react` is the default. */
export const StrategyName = z.enum(['react', 'plan_execute', 'hybrid', 'auto']);
export type StrategyName = z.infer<typeof StrategyName>;

/**
 * What a strategy needs of the kernel that runs it (the strategy port, ADR/0241): the models, the
 * limits on what they answer, the clock and the loop's settings. The kernel's dependencies satisfy
 * it; a strategy never sees the rest. The tools a planner is told about are the run's (`StrategyRun.tools`).
 */
export interface StrategyDeps {
  readonly models: { readonly model: Model; readonly planner: Model };
  readonly tools: { readonly limits: Limits };
  readonly clock: Clock;
  readonly context: { readonly system: string | undefined };
  readonly loop: { readonly bounds: Bounds; readonly goal: string | undefined; readonly strategy: StrategyName; readonly autoRules: ResolvedAutoRules };
}

/** The run a strategy picks tasks for: its fixed task list, its events, its checkpoint writer. */
export interface StrategyRun {
  readonly runId: string;
  /** Where a rate-limited model's calls count (the planner's too): the run's windows. */
  rateWindow?(model: Model, limit: RateLimit): RateWindow;
  /** The workflow's fixed task list (the `react` strategy walks it in order). */
  readonly tasks: readonly TaskSpec[];
  readonly checkpoints: Pick<CheckpointWriter, 'select'>;
  /** The run's tools: the kernel's, plus its tool sources' once opened at the run's first need (ADR/0143). */
  readonly tools: RunToolCatalog;
  emit(body: KernelEventBody): void;
}

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
  next(input: TaskSourceInput, run: StrategyRun, deps: StrategyDeps, signal: AbortSignal): Promise<TaskSourceOutput>;
  /** Tasks still to run after `results`, or `undefined` when the strategy cannot tell yet. */
  remaining(results: readonly TaskResult[], state: unknown, run: StrategyRun): number | undefined;
  /**
   * The halt rule at NEXT_TASK, replacing the default (`haltedByTask`: a task that did not
   * complete stops the workflow with its reason). Plan strategies return nothing for a step they
   * will replan, so that the next TASK_SELECT can replan it.
   */
  halted?(check: OuterCheck, state: unknown): StopCandidate | undefined;
}
