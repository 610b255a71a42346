/**
 * The strategy registry: the one place that maps a strategy name to its module. A new strategy
 * is a new module plus one entry here; the machines and the other strategies stay untouched.
 */
import type { SelectableStrategy } from './auto-rules.js';
import { createAutoStrategy } from './auto.js';
import { createHybridStrategy } from './hybrid.js';
import { createPlanExecuteStrategy } from './plan-execute.js';
import { reactStrategy } from './react.js';
import { withStrategyCheckpoint } from './strategy-checkpoint.js';
import type { StrategyDeps, TaskStrategy } from './strategy.js';

const STRATEGIES: Readonly<Record<SelectableStrategy, (deps: StrategyDeps) => TaskStrategy>> = {
  react: () => reactStrategy,
  plan_execute: createPlanExecuteStrategy,
  hybrid: createHybridStrategy,
};

/** The task source of a kernel, from `options.strategy` (default `react`). */
export function createStrategy(deps: StrategyDeps): TaskStrategy {
  if (deps.loop.strategy === 'react') return reactStrategy;
  const strategy =
    deps.loop.strategy === 'auto'
      ? createAutoStrategy(deps, { react: STRATEGIES.react(deps), plan_execute: STRATEGIES.plan_execute(deps), hybrid: STRATEGIES.hybrid(deps) })
      : STRATEGIES[deps.loop.strategy](deps);
  return withStrategyCheckpoint(strategy);
}
