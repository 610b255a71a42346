/**
 * What `plan_execute` and `hybrid` share: plan the goal, hand the plan's steps to the inner loop
 * one at a time, replan after a failed step (up to `bounds.outer.maxReplans`), and — when the
 * strategy reviews — let the planner revise the remaining steps after each completed one.
 * Everything happens at TASK_SELECT: the machines do not know about plans (ADR/0070).
 */
import type { PlanStrategyName } from '../contracts/events.js';
import type { ToolDescriptor } from '../contracts/model.js';
import { describeError } from '../errors.js';
import { isNaturalCompletion, type StopReason } from '../contracts/stop.js';
import type { TaskResult } from '../contracts/results.js';
import type { TaskSpec } from '../contracts/turn-protocol.js';
import type { TaskSourceInput } from '../contracts/workflow-protocol.js';
import type { StopCandidate } from '../stop/inner-conditions.js';
import { haltedByTask, type OuterCheck } from '../stop/outer-conditions.js';
import { parsePlan, parseReview, type StepLimits } from './plan-parser.js';
import { parsePlanState, stepTaskId, type PlanProgress, type PlanState } from './plan-state.js';
import { mechanicalSummary, planMessages, replanMessages, reviewMessages } from './planner-prompts.js';
import { createPlanningSession, type PlanningSession } from './planning-session.js';
import { freshActiveTask } from './react.js';
import { sharedBudgetStop, stepBounds } from './shared-budget.js';
import type { StrategyDeps, StrategyRun, TaskStrategy } from './strategy.js';

/** Step stops that trigger a replan; the others (budgets, deadlines, approvals, cancels) stop the workflow as usual. */
export const REPLANNED_STOPS: ReadonlySet<StopReason> = new Set<StopReason>(['error', 'loop_detected', 'max_tool_calls', 'max_runtime', 'policy_denied']);

export interface PlanStrategyConfig {
  readonly name: PlanStrategyName;
  /** How many steps the first plan (and a replan) may have. */
  readonly limits: StepLimits;
  /** The executor's task message for the step at `plan.cursor`. */
  readonly stepPrompt: (goal: string, plan: PlanProgress) => string;
  /** Ask the planner, after each completed step, whether the remaining steps still fit. */
  readonly reviewAfterStep: boolean;
}

interface Pick {
  readonly deps: StrategyDeps;
  readonly run: StrategyRun;
  readonly input: TaskSourceInput;
  readonly session: PlanningSession;
  readonly goal: string;
}

type Decision = Parameters<PlanningSession['answer']>[0];
/** Either the plan goes on (a step is issued next) or the pick ends with a decision. */
type Step = { readonly plan: PlanProgress; readonly decision?: undefined } | { readonly plan: PlanProgress | undefined; readonly decision: Decision };

const stopWith = (plan: PlanProgress | undefined, stop: StopCandidate): Step => ({ plan, decision: { kind: 'stop', stop } });

/** The workflow goal the planner plans for: the `goal` option, else the tasks (numbered when several). */
export function workflowGoal(deps: StrategyDeps, run: StrategyRun): string {
  if (deps.loop.goal !== undefined) return deps.loop.goal;
  if (run.tasks.length === 1) return run.tasks[0]!.description;
  return run.tasks.map((task, index) => `${index + 1}. ${task.description}`).join('\n');
}

export function createPlanStrategy(config: PlanStrategyConfig, deps: StrategyDeps): TaskStrategy {
  return {
    name: config.name,
    async next(input, run, _deps, signal) {
      const loaded = parsePlanState(input.strategy);
      if (!loaded.ok) return { kind: 'stop', stop: { reason: 'error', code: 'checkpoint_corrupt', detail: loaded.problem, at: deps.clock.now() }, strategy: input.strategy };
      const session = createPlanningSession({ input, deps, run, signal, counters: { planner: loaded.state.plannerCalls, classifier: 0 } });
      const pick: Pick = { deps, run, input, session, goal: workflowGoal(deps, run) };
      const step = await advance(config, pick, loaded.state.plan);
      const final = step.decision === undefined ? issue(pick, step.plan, config) : step;
      const state: PlanState = { plannerCalls: session.counters().planner, ...(final.plan === undefined ? {} : { plan: final.plan }) };
      return session.answer(final.decision, state);
    },
    remaining: () => undefined,
    halted: (check) => planHalt(check, deps),
  };
}

async function advance(config: PlanStrategyConfig, pick: Pick, plan: PlanProgress | undefined): Promise<Step> {
  if (plan === undefined) return makePlan(config, pick);
  const last = pick.input.results.at(-1);
  // A step issued but without a result (a resume before it ran) is issued again, under the same id.
  if (plan.current === undefined || last === undefined || last.taskId !== plan.current) return { plan };
  const { current: _settled, ...rest } = plan;
  if (REPLANNED_STOPS.has(last.stop.reason)) return replan(config, pick, rest, last);
  const record = { taskId: last.taskId, description: last.description, reason: last.stop.reason, summary: mechanicalSummary(last) };
  const next: PlanProgress = { ...rest, cursor: plan.cursor + 1, done: [...plan.done, record] };
  return config.reviewAfterStep ? review(config, pick, next) : { plan: next };
}

/** The tools the planner plans with: the run's, its tool sources opened first (ADR/0143). */
async function runTools(run: StrategyRun): Promise<{ readonly ok: true; readonly descriptors: readonly ToolDescriptor[] } | { readonly ok: false; readonly stop: StopCandidate }> {
  try {
    return { ok: true, descriptors: (run.tools.ready ?? (await run.tools.open())).descriptors };
  } catch (error) {
    const detail = `tool failure: ${describeError(error)}`;
    run.emit({ type: 'error', scope: 'tool', message: detail });
    return { ok: false, stop: { reason: 'error', code: 'tool_failed', detail } };
  }
}

async function makePlan(config: PlanStrategyConfig, pick: Pick): Promise<Step> {
  const { deps, session } = pick;
  const budget = sharedBudgetStop(deps.loop.bounds, session.metrics(), 2, 'planning');
  if (budget !== undefined) return stopWith(undefined, budget);
  const tools = await runTools(pick.run);
  if (!tools.ok) return stopWith(undefined, tools.stop);
  const reply = await session.call(deps.models.planner, planMessages(pick.goal, tools.descriptors, config.limits), 'planner');
  if (!reply.ok) return stopWith(undefined, { reason: 'error', code: 'model_failed', detail: reply.problem });
  const parsed = parsePlan(reply.text, config.limits);
  if (!parsed.ok) return stopWith(undefined, { reason: 'error', code: 'plan_invalid', detail: `the planner's plan is unusable: ${parsed.problem}` });
  const steps = parsed.artifact.steps ?? [];
  pick.run.emit({ type: 'plan_created', strategy: config.name, version: 1, steps });
  return { plan: { version: 1, steps, cursor: 0, done: [], replansUsed: 0 } };
}

async function replan(config: PlanStrategyConfig, pick: Pick, plan: PlanProgress, failed: TaskResult): Promise<Step> {
  const { deps, session } = pick;
  const { maxReplans } = deps.loop.bounds.outer;
  const failure = `step "${failed.description}" stopped ${failed.stop.reason}: ${failed.stop.detail}`;
  const record = { taskId: failed.taskId, description: failed.description, reason: failed.stop.reason, summary: mechanicalSummary(failed) };
  const after: PlanProgress = { ...plan, done: [...plan.done, record] };
  if (plan.replansUsed >= maxReplans) {
    return stopWith(after, {
      reason: 'max_replans',
      detail: `${failure}; ${plan.replansUsed} of maxReplans=${maxReplans} replans already used`,
      bound: { name: 'maxReplans', limit: maxReplans, value: plan.replansUsed },
    });
  }
  const budget = sharedBudgetStop(deps.loop.bounds, session.metrics(), 2, 'a replan');
  if (budget !== undefined) return stopWith(after, budget);
  const tools = await runTools(pick.run);
  if (!tools.ok) return stopWith(after, tools.stop);
  const messages = replanMessages({ goal: pick.goal, tools: tools.descriptors, limits: config.limits, plan, failed, maxReplans });
  const reply = await session.call(deps.models.planner, messages, 'planner (replan)');
  if (!reply.ok) return stopWith(after, { reason: 'error', code: 'model_failed', detail: reply.problem });
  const parsed = parsePlan(reply.text, { min: 1, max: config.limits.max });
  if (!parsed.ok) return stopWith(after, { reason: 'error', code: 'plan_invalid', detail: `the planner's revised plan is unusable: ${parsed.problem}` });
  const revised: PlanProgress = { version: plan.version + 1, steps: parsed.artifact.steps ?? [], cursor: 0, done: after.done, replansUsed: plan.replansUsed + 1 };
  pick.run.emit({
    type: 'plan_revised',
    strategy: config.name,
    version: revised.version,
    steps: revised.steps,
    reason: failure,
    trigger: 'step_failed',
    replansUsed: revised.replansUsed,
  });
  return { plan: revised };
}

/** Hybrid: after a completed step, the planner summarizes and may revise the remaining steps. */
async function review(config: PlanStrategyConfig, pick: Pick, plan: PlanProgress): Promise<Step> {
  const { deps, session } = pick;
  // Nothing left to revise, or no room for a review and a step: the next step runs as planned.
  if (plan.cursor >= plan.steps.length || sharedBudgetStop(deps.loop.bounds, session.metrics(), 2, 'a review') !== undefined) return { plan };
  const reply = await session.call(deps.models.planner, reviewMessages({ goal: pick.goal, plan, limits: config.limits }), 'planner (review)');
  if (!reply.ok) return stopWith(plan, { reason: 'error', code: 'model_failed', detail: reply.problem });
  const parsed = parseReview(reply.text, config.limits);
  if (!parsed.ok) return stopWith(plan, { reason: 'error', code: 'plan_invalid', detail: `the planner's review is unusable: ${parsed.problem}` });
  const { steps, summary, reason } = parsed.artifact;
  const last = plan.done.at(-1)!;
  const done = summary === undefined || summary.trim() === '' ? plan.done : [...plan.done.slice(0, -1), { ...last, summary: summary.trim() }];
  if (steps === undefined) return { plan: { ...plan, done } };
  const revised: PlanProgress = { ...plan, version: plan.version + 1, steps, cursor: 0, done };
  pick.run.emit({
    type: 'plan_revised',
    strategy: config.name,
    version: revised.version,
    steps,
    reason: reason ?? `revised after step "${last.description}"`,
    trigger: 'review',
    replansUsed: plan.replansUsed,
  });
  return { plan: revised };
}

/** The next step as a task, with what is left of the shared budget as its bounds — or why there is none. */
function issue(pick: Pick, plan: PlanProgress, config: PlanStrategyConfig): Step & { decision: Decision } {
  const { deps, session, input } = pick;
  const step = plan.steps[plan.cursor];
  if (step === undefined) {
    const completed = plan.done.filter((record) => isNaturalCompletion(record.reason)).length;
    const early = plan.done.filter((record) => !isNaturalCompletion(record.reason) && !REPLANNED_STOPS.has(record.reason));
    const detail = `the plan is done: ${completed} of ${plan.done.length} steps completed (plan version ${plan.version}, ${plan.replansUsed} replan${plan.replansUsed === 1 ? '' : 's'})${
      early.length === 0 ? '' : `; stopped early: ${early.map((record) => `${record.taskId} ${record.reason}`).join(', ')}`
    }`;
    return { plan, decision: { kind: 'stop', stop: { reason: 'goal_achieved', detail } } };
  }
  const metrics = session.metrics();
  const budget = sharedBudgetStop(deps.loop.bounds, metrics, 1, `step ${plan.cursor + 1} ("${step.description}")`);
  if (budget !== undefined) return { plan, decision: { kind: 'stop', stop: budget } };
  const task: TaskSpec = { id: stepTaskId(plan), index: input.results.length, description: step.description, bounds: stepBounds(deps.loop.bounds.inner, metrics) };
  return { plan: { ...plan, current: task.id }, decision: { kind: 'task', active: freshActiveTask(task, deps.context.system, config.stepPrompt(pick.goal, plan)) } };
}

/**
 * The halt rule of the plan strategies: a step stopped for a replanned reason does not stop the
 * workflow (the next TASK_SELECT replans); a step that spent the shared budget stops it with the
 * plan's bound; anything else follows the default rule.
 */
function planHalt(check: OuterCheck, deps: StrategyDeps): StopCandidate | undefined {
  const last = check.results.at(-1);
  if (last === undefined || REPLANNED_STOPS.has(last.stop.reason)) return undefined;
  if (check.onTaskStop === 'halt' && (last.stop.reason === 'max_turns' || last.stop.reason === 'budget_exhausted')) {
    return sharedBudgetStop(deps.loop.bounds, check.metrics, 1, 'the next step') ?? haltedByTask(check);
  }
  return haltedByTask(check);
}
