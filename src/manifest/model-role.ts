/**
 * What a model block of the manifest answers, as its cassette needs to know (ADR/0430): the tasks
 * a cassette by task may name, and why the model's calls may belong to no task (it plans, or
 * judges) — such calls need a cassette in call order. Pure.
 */
import type { CassetteTask } from './cassette-by-task.js';
import { manifestTaskIds } from './manifest-task.js';
import type { Manifest } from './manifest-schema.js';
import { pathOf, type ModelAt } from './model-at.js';

export interface ModelRole {
  /** The tasks whose calls it answers; `undefined` when they are not known before the run (a plan strategy's `goal`). */
  readonly tasks: readonly CassetteTask[] | undefined;
  /** Why some of its calls belong to no task, or `undefined`. */
  readonly plans: string | undefined;
  /** Who is asked to take a cassette in call order. */
  readonly who: string;
  /**
   * The agents whose child runs call this model without a model of their own. Each run plays a
   * cassette in call order from its first answer, so theirs would replay the manifest's answers.
   */
  readonly sharedWith: readonly string[];
}

export function modelRole(manifest: Manifest, at: ModelAt): ModelRole {
  const [first, second] = pathOf(at);
  const agents = manifest.agents ?? {};
  if (first === 'agents' && typeof second === 'string' && agents[second] !== undefined) {
    const agent = agents[second];
    const strategy = agent.strategy ?? manifest.strategy;
    const plans = manifest.planner === undefined && (strategy === 'plan_execute' || strategy === 'hybrid') ? `agent "${second}" plans with this model (strategy ${strategy}, no planner: block)` : undefined;
    return { tasks: manifestTaskIds(agent.tasks), plans, who: 'this agent', sharedWith: [] };
  }
  // An agent without a model of its own asks the manifest's: its tasks are the model's too.
  const sharedWith = Object.keys(agents).filter((name) => agents[name]!.model === undefined);
  const inheriting = sharedWith.flatMap((name) => manifestTaskIds(agents[name]!.tasks));
  const tasks = manifest.tasks === undefined ? undefined : [...manifestTaskIds(manifest.tasks), ...inheriting];
  if (at === 'planner') return { tasks, plans: 'this is the planner', who: 'the planner', sharedWith: [] };
  if (at !== 'model') return { tasks, plans: 'this is a judge', who: 'the judge', sharedWith: [] };
  const strategy = manifest.strategy;
  const plans = manifest.planner === undefined && (strategy === 'plan_execute' || strategy === 'hybrid') ? `strategy ${strategy} plans with this model (no planner: block)` : undefined;
  return { tasks, plans, who: 'the planner', sharedWith };
}
