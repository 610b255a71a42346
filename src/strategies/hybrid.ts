/**
 * `hybrid`: a plan of 3–7 steps; each step runs as a full ReAct loop that sees the whole plan and
 * the progress so far; after each completed step the planner summarizes the progress (kept in the
 * checkpointed strategy state) and may revise the remaining steps. A failed step is replanned as
 * in `plan_execute`.
 */
import { createPlanStrategy } from './plan-runner.js';
import { contextualStepPrompt } from './planner-prompts.js';
import type { StrategyDeps, TaskStrategy } from './strategy.js';

export const HYBRID_STEP_LIMITS = { min: 3, max: 7 } as const;

export function createHybridStrategy(deps: StrategyDeps): TaskStrategy {
  return createPlanStrategy({ name: 'hybrid', limits: HYBRID_STEP_LIMITS, stepPrompt: contextualStepPrompt, reviewAfterStep: true }, deps);
}
