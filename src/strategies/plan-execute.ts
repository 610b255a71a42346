/**
 * `plan_execute`: one planner call turns the goal into a plan; each step runs as one task of the
 * inner loop (executor = `model`), seeing the goal, what is done and its own step only; a failed
 * step triggers a replan with what has been done so far, up to `bounds.outer.maxReplans`.
 */
import { createPlanStrategy } from './plan-runner.js';
import { focusedStepPrompt } from './planner-prompts.js';
import type { StrategyDeps, TaskStrategy } from './strategy.js';

export function createPlanExecuteStrategy(deps: StrategyDeps): TaskStrategy {
  return createPlanStrategy(
    { name: 'plan_execute', limits: { min: 1, max: Number.POSITIVE_INFINITY }, stepPrompt: focusedStepPrompt, reviewAfterStep: false },
    deps,
  );
}
