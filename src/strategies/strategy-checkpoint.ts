/**
 * A pick in which a strategy planned (or chose) is something a resume must continue from, not
 * redo: the plan, the planner's call count and what the calls spent become the run's latest
 * progress — which every turn checkpoint extends — and, when a model was called, are saved as a
 * checkpoint at once. Without this, a crash before the step's first turn would plan again.
 */
import { nextEnvelope } from '../checkpoint/envelope-for.js';
import type { KernelDeps } from '../kernel/kernel-deps.js';
import { addSpend } from '../loop/workflow-reducers.js';
import type { TaskStrategy } from './strategy.js';

export function withStrategyCheckpoint(strategy: TaskStrategy, deps: KernelDeps): TaskStrategy {
  return {
    ...strategy,
    async next(input, run, kernelDeps, signal) {
      const output = await strategy.next(input, run, kernelDeps, signal);
      if (output.strategy === undefined && output.spent === undefined) return output;
      const metrics = addSpend(input.metrics, output.spent);
      // Reaching TASK_SELECT commits the last task (recordPick): the progress holds every result.
      run.latestProgress = {
        results: input.results,
        metrics,
        queues: input.queues,
        modelCallIndex: output.modelCallIndex ?? input.modelCallIndex,
        elapsedMs: metrics.runtimeMs,
        ...(output.strategy === undefined ? {} : { strategy: output.strategy }),
      };
      if (output.spent !== undefined && !signal.aborted) {
        await run.store.saveCheckpoint(nextEnvelope(run, 'task', run.latestProgress, deps.clock.now()));
      }
      return output;
    },
  };
}
