/**
 * `auto`: at the workflow's first TASK_SELECT, picks `react`, `plan_execute` or `hybrid` from
 * `autoRules` (src/strategies/auto-rules.ts), reports the choice and its reason as a
 * `strategy_selected` event, and from then on delegates to the chosen strategy. The choice is
 * part of the checkpointed state, so a resumed run keeps it.
 */
import { z } from 'zod';
import { lazySchema } from '../contracts/lazy-schema.js';
import type { TaskSourceInput, TaskSourceOutput } from '../contracts/workflow-protocol.js';
import { haltedByTask } from '../stop/outer-conditions.js';
import { chooseByRules, classifyMessages, parseClassification, type SelectableStrategy } from './auto-rules.js';
import { workflowGoal } from './plan-runner.js';
import { createPlanningSession, sumSpend, type PlanningSession } from './planning-session.js';
import type { StrategyDeps, StrategyRun, TaskStrategy } from './strategy.js';

interface AutoState {
  readonly selected: SelectableStrategy;
  readonly reason: string;
  readonly by: 'rules' | 'classifier';
  /** The chosen strategy's own state. */
  readonly inner?: unknown;
}

const AutoStateSchema = lazySchema(() => z.object({
  selected: z.enum(['react', 'plan_execute', 'hybrid']),
  reason: z.string(),
  by: z.enum(['rules', 'classifier']),
  inner: z.unknown().optional(),
}));

function loadState(value: unknown): AutoState | undefined {
  const parsed = AutoStateSchema().safeParse(value);
  return parsed.success ? (parsed.data as AutoState) : undefined;
}

export function createAutoStrategy(deps: StrategyDeps, candidates: Readonly<Record<SelectableStrategy, TaskStrategy>>): TaskStrategy {
  const delegate = async (state: AutoState, input: TaskSourceInput, run: StrategyRun, signal: AbortSignal): Promise<TaskSourceOutput> => {
    const output = await candidates[state.selected].next({ ...input, strategy: state.inner }, run, deps, signal);
    return { ...output, strategy: { ...state, inner: output.strategy } };
  };
  return {
    name: 'auto',
    async next(input, run, _deps, signal) {
      if (input.strategy !== undefined) {
        const state = loadState(input.strategy);
        if (state === undefined) return { kind: 'stop', stop: { reason: 'error', code: 'checkpoint_corrupt', detail: "the auto strategy's saved state is invalid", at: deps.clock.now() } };
        return delegate(state, input, run, signal);
      }
      const session = createPlanningSession({ input, deps, run, signal, counters: { planner: 0, classifier: 0 } });
      const choice = await choose(deps, run, session);
      run.emit({ type: 'strategy_selected', strategy: choice.selected, reason: choice.reason, by: choice.by });
      // A classifier that is the planner has used planner calls: the plan strategy continues its count.
      const inner = choice.selected === 'react' ? undefined : { plannerCalls: session.counters().planner };
      const seeded = { ...input, metrics: session.metrics(), modelCallIndex: session.modelCallIndex() };
      const output = await delegate({ ...choice, inner }, seeded, run, signal);
      const spent = session.spent().turns === 0 ? output.spent : sumSpend(session.spent(), output.spent);
      const modelCallIndex = output.modelCallIndex ?? (seeded.modelCallIndex === input.modelCallIndex ? undefined : seeded.modelCallIndex);
      return { ...output, ...(spent === undefined ? {} : { spent }), ...(modelCallIndex === undefined ? {} : { modelCallIndex }) };
    },
    remaining(results, state, run) {
      const loaded = loadState(state);
      return loaded === undefined ? undefined : candidates[loaded.selected].remaining(results, loaded.inner, run);
    },
    halted(check, state) {
      const loaded = loadState(state);
      const chosen = loaded === undefined ? undefined : candidates[loaded.selected];
      return chosen?.halted === undefined ? haltedByTask(check) : chosen.halted(check, loaded?.inner);
    },
  };
}

async function choose(deps: StrategyDeps, run: StrategyRun, session: PlanningSession): Promise<Omit<AutoState, 'inner'>> {
  const goal = workflowGoal(deps, run);
  const { classifier } = deps.loop.autoRules;
  let note = '';
  if (classifier !== undefined) {
    const reply = await session.call(classifier, classifyMessages(goal, run.tasks.length), 'classifier');
    const picked = reply.ok ? parseClassification(reply.text) : undefined;
    if (picked !== undefined) return { selected: picked, reason: `the classifier answered ${picked}`, by: 'classifier' };
    note = reply.ok ? `the classifier named no strategy (${JSON.stringify(reply.text.slice(0, 80))}); ` : `${reply.problem}; `;
  }
  const rule = chooseByRules(deps.loop.autoRules, run.tasks.length, goal);
  return { selected: rule.strategy, reason: `${note}${rule.reason}`, by: 'rules' };
}
