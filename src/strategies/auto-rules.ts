/**
 * How `auto` picks a strategy per workflow: an optional cheap classification call, then fixed
 * rules on the number of tasks and the length of the goal (ADR/0073).
 */
import { z } from 'zod';
import { lazySchema } from '../contracts/lazy-schema.js';
import type { Message } from '../contracts/messages.js';
import type { Model } from '../contracts/model.js';

export type SelectableStrategy = 'react' | 'plan_execute' | 'hybrid';

export interface AutoRules {
  /** Workflows with at most this many tasks (and a short goal) run `react`. Default 3. */
  readonly maxTasksForReact?: number;
  /** A goal at least this long (in characters) runs `hybrid`. Default 500. */
  readonly longGoalChars?: number;
  /** Ask a model first: `true` uses the planner, a Model uses that model. Default off. */
  readonly classify?: Model | boolean;
}

export interface ResolvedAutoRules {
  readonly maxTasksForReact: number;
  readonly longGoalChars: number;
  readonly classifier: Model | undefined;
}

export const DEFAULT_AUTO_RULES = Object.freeze({ maxTasksForReact: 3, longGoalChars: 500 });

const isModel = (value: unknown): value is Model =>
  typeof value === 'object' && value !== null && typeof (value as { call?: unknown }).call === 'function';

export const AutoRulesSchema = lazySchema(() => z.strictObject({
  maxTasksForReact: z.number().int().positive().optional(),
  longGoalChars: z.number().int().positive().optional(),
  classify: z.custom<Model | boolean>((value) => typeof value === 'boolean' || isModel(value), 'must be true, false or a Model (an object with call())').optional(),
}));

export function resolveAutoRules(rules: AutoRules | undefined, planner: Model): ResolvedAutoRules {
  const classify = rules?.classify;
  return {
    maxTasksForReact: rules?.maxTasksForReact ?? DEFAULT_AUTO_RULES.maxTasksForReact,
    longGoalChars: rules?.longGoalChars ?? DEFAULT_AUTO_RULES.longGoalChars,
    classifier: classify === true ? planner : classify === false || classify === undefined ? undefined : classify,
  };
}

/** The rules alone: a long goal → hybrid; more tasks than `maxTasksForReact` → plan_execute; else react. */
export function chooseByRules(rules: ResolvedAutoRules, taskCount: number, goal: string): { strategy: SelectableStrategy; reason: string } {
  const tasks = `${taskCount} task${taskCount === 1 ? '' : 's'}`;
  if (goal.length >= rules.longGoalChars) {
    return { strategy: 'hybrid', reason: `the goal has ${goal.length} characters, at least longGoalChars=${rules.longGoalChars}` };
  }
  if (taskCount > rules.maxTasksForReact) {
    return { strategy: 'plan_execute', reason: `${tasks}, more than maxTasksForReact=${rules.maxTasksForReact}` };
  }
  return {
    strategy: 'react',
    reason: `${tasks} (maxTasksForReact=${rules.maxTasksForReact}) and a goal of ${goal.length} characters (under longGoalChars=${rules.longGoalChars})`,
  };
}

export function classifyMessages(goal: string, taskCount: number): Message[] {
  return [
    {
      role: 'system',
      content:
        'Pick how an agent should work on a goal. Answer with one word: ' +
        '"react" for a short task done in a few tool calls, "plan_execute" for work of several distinct steps known up front, ' +
        'or "hybrid" for long, open-ended work that is best planned and revised as it goes.',
    },
    { role: 'user', content: `The workflow has ${taskCount} task${taskCount === 1 ? '' : 's'}. Goal:\n${goal}` },
  ];
}

/** The first strategy named in a classifier's answer (`plan-execute` and `plan execute` count too). */
export function parseClassification(text: string): SelectableStrategy | undefined {
  const match = /\b(react|plan[_\- ]execute|hybrid)\b/i.exec(text);
  if (match === null) return undefined;
  const word = match[1]!.toLowerCase();
  return word === 'react' || word === 'hybrid' ? word : 'plan_execute';
}
