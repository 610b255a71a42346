/**
 * The plan strategies' shared budget (ADR/0071): under `plan_execute` and `hybrid` the inner
 * bounds `maxTurns`, `maxTokens` and `maxCostUsd` hold for the whole plan — planner calls and
 * every step together — instead of per task. Each step gets what is left as its own inner bounds,
 * so a step that reaches one of them has spent the plan's budget. The outer token and cost
 * budgets hold as always.
 */
import type { Bounds, InnerBounds } from '../contracts/bounds.js';
import type { WorkflowMetrics } from '../contracts/results.js';
import type { StopCandidate } from '../stop/inner-conditions.js';

/**
 * Why no more work fits in the shared budget, if so. `turnsNeeded` is how many turns the next
 * piece of work needs at least (a planner call followed by a step needs 2, a step alone 1).
 */
export function sharedBudgetStop(bounds: Bounds, metrics: WorkflowMetrics, turnsNeeded: number, what: string): StopCandidate | undefined {
  const { inner, outer } = bounds;
  const tokens = metrics.inputTokens + metrics.outputTokens;
  if (metrics.turns + turnsNeeded > inner.maxTurns) {
    return {
      reason: 'max_turns',
      detail: `the plan's shared turn budget is spent before ${what}: ${metrics.turns} turns used (planner calls included) of maxTurns=${inner.maxTurns}`,
      bound: { name: 'maxTurns', limit: inner.maxTurns, value: metrics.turns },
    };
  }
  const tokenLimits: [string, number | undefined][] = [
    ['inner.maxTokens', inner.maxTokens],
    ['outer.maxTokens', outer.maxTokens],
  ];
  for (const [name, limit] of tokenLimits) {
    if (limit !== undefined && tokens >= limit) {
      return { reason: 'budget_exhausted', detail: `the plan used ${tokens} tokens before ${what}, ${name}=${limit}`, bound: { name, limit, value: tokens } };
    }
  }
  const costLimits: [string, number | undefined][] = [
    ['inner.maxCostUsd', inner.maxCostUsd],
    ['outer.maxCostUsd', outer.maxCostUsd],
  ];
  for (const [name, limit] of costLimits) {
    if (limit !== undefined && metrics.costUsd >= limit) {
      return {
        reason: 'budget_exhausted',
        detail: `the plan cost $${metrics.costUsd.toFixed(6)} before ${what}, ${name}=${limit}`,
        bound: { name, limit, value: metrics.costUsd },
      };
    }
  }
  return undefined;
}

/** A step's inner bounds: the configured ones, with turns, tokens and cost cut to what is left. */
export function stepBounds(inner: InnerBounds, metrics: WorkflowMetrics): InnerBounds {
  const tokens = metrics.inputTokens + metrics.outputTokens;
  return {
    ...inner,
    maxTurns: inner.maxTurns - metrics.turns,
    ...(inner.maxTokens === undefined ? {} : { maxTokens: inner.maxTokens - tokens }),
    ...(inner.maxCostUsd === undefined ? {} : { maxCostUsd: inner.maxCostUsd - metrics.costUsd }),
  };
}
