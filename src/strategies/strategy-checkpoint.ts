/**
 * A pick in which a strategy planned (or chose) is something a resume must continue from, not
 * redo: the plan, the planner's call count and what the calls spent go to the run's checkpoint
 * writer — every later entry carries them — and, when a model was called, are saved as a
 * `select` entry at once. Without this, a crash before the step's first turn would plan again.
 */
import { addSpend } from '../loop/branch-reducers.js';
import type { TaskStrategy } from './strategy.js';

export function withStrategyCheckpoint(strategy: TaskStrategy): TaskStrategy {
  return {
    ...strategy,
    async next(input, run, kernelDeps, signal) {
      const output = await strategy.next(input, run, kernelDeps, signal);
      if (output.strategy === undefined && output.spent === undefined) return output;
      const metrics = addSpend(input.metrics, output.spent);
      // Reaching TASK_SELECT commits the last task (recordPick): the progress holds every result.
      const progress = {
        results: input.results,
        metrics,
        queues: input.queues,
        modelCallIndex: output.modelCallIndex ?? input.modelCallIndex,
        elapsedMs: metrics.runtimeMs,
        ...(output.strategy === undefined ? {} : { strategy: output.strategy }),
      };
      await run.checkpoints.select(progress, output.spent !== undefined && !signal.aborted);
      return output;
    },
  };
}
