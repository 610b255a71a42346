/**
 * The model calls one TASK_SELECT makes (plan, replan, review, classify): each counts as a turn of
 * the workflow, its usage and cost as workflow usage, and gets a `callIndex` that survives resume.
 *
 * `callIndex` is "how many calls this model answered earlier in the run" (contracts/model.ts). A
 * planner that is the executor model itself continues the workflow's model-call index; any other
 * model has its own counter, kept in the strategy state (`plannerCalls`, `classifierCalls`).
 */
import type { Message } from '../contracts/messages.js';
import { callWithinRateLimit, rateLimitOf } from '../providers/rate-limited-call.js';
import type { Model, ModelResult } from '../contracts/model.js';
import type { StopCondition } from '../contracts/stop.js';
import type { WorkflowMetrics } from '../contracts/results.js';
import type { StrategySpend, TaskSourceInput, TaskSourceOutput } from '../contracts/workflow-protocol.js';
import { checkedModelResult } from '../providers/checked-model-result.js';
import { describeError } from '../errors.js';
import { addSpend } from '../loop/branch-reducers.js';
import type { StopCandidate } from '../stop/inner-conditions.js';
import type { StrategyDeps, StrategyRun } from './strategy.js';

/** Call counters of the models that are not the executor. */
export interface ModelCounters {
  readonly planner: number;
  readonly classifier: number;
}

export type PlannerReply = { readonly ok: true; readonly text: string } | { readonly ok: false; readonly problem: string };

export interface PlanningSession {
  /** The workflow's metrics with this session's calls added. */
  metrics(): WorkflowMetrics;
  counters(): ModelCounters;
  /** What this session's calls spent so far, and the executor's call index after them. */
  spent(): StrategySpend;
  modelCallIndex(): number;
  /** One tool-less model call; a failure is a named problem, never a throw. */
  call(model: Model, messages: readonly Message[], purpose: string): Promise<PlannerReply>;
  /** The task-source answer, carrying what this session spent and the executor's call index. */
  answer(
    decision: { readonly kind: 'task'; readonly active: Extract<TaskSourceOutput, { kind: 'task' }>['active'] } | { readonly kind: 'stop'; readonly stop: StopCandidate },
    strategy: unknown,
  ): TaskSourceOutput;
}

export function createPlanningSession(options: {
  readonly input: TaskSourceInput;
  readonly deps: StrategyDeps;
  readonly run: StrategyRun;
  readonly signal: AbortSignal;
  readonly counters: ModelCounters;
}): PlanningSession {
  const { input, deps, run, signal } = options;
  let spent: StrategySpend = { turns: 0, inputTokens: 0, outputTokens: 0, costUsd: 0 };
  let executorCalls = 0;
  let counters = options.counters;

  const callIndexFor = (model: Model): number => {
    if (model === deps.models.model) return input.modelCallIndex + executorCalls++;
    if (model === deps.models.planner) {
      const index = counters.planner;
      counters = { ...counters, planner: index + 1 };
      return index;
    }
    const index = counters.classifier;
    counters = { ...counters, classifier: index + 1 };
    return index;
  };

  return {
    metrics: () => addSpend(input.metrics, spent),
    counters: () => counters,
    spent: () => spent,
    modelCallIndex: () => input.modelCallIndex + executorCalls,
    async call(model, messages, purpose) {
      const callIndex = callIndexFor(model);
      let result: ModelResult;
      try {
        const request = { messages, tools: [], signal, callIndex, onTextDelta: () => undefined };
        const limit = rateLimitOf(model);
        const window = limit === undefined ? undefined : run.rateWindow?.(model, limit);
        // A planner's waits have no task to report on: they show as the time before the plan.
        result = window === undefined ? await model.call(request) : await callWithinRateLimit(model, request, { window, onWait: () => undefined });
      } catch (error) {
        result = { type: 'failure', code: 'model_threw', message: describeError(error) };
      }
      // Planner and classifier usage counts against the budgets too: validated like every model's (ADR 0112).
      result = checkedModelResult(result, deps.tools.limits);
      const usage = result.type === 'response' ? result.usage : (result.usage ?? { inputTokens: 0, outputTokens: 0 });
      spent = {
        turns: spent.turns + 1,
        inputTokens: spent.inputTokens + usage.inputTokens,
        outputTokens: spent.outputTokens + usage.outputTokens,
        costUsd: spent.costUsd + (result.type === 'response' ? result.costUsd : 0),
      };
      if (result.type === 'response') return { ok: true, text: result.text };
      const problem = `${purpose} call failed (${result.code}): ${result.message}`;
      run.emit({ type: 'error', scope: 'model', message: problem });
      return { ok: false, problem };
    },
    answer(decision, strategy) {
      const extras = {
        ...(strategy === undefined ? {} : { strategy }),
        ...(spent.turns === 0 ? {} : { spent }),
        ...(executorCalls === 0 ? {} : { modelCallIndex: input.modelCallIndex + executorCalls }),
      };
      if (decision.kind === 'task') return { kind: 'task', active: decision.active, ...extras };
      const stop: StopCondition = { ...decision.stop, at: deps.clock.now() };
      return { kind: 'stop', stop, ...extras };
    },
  };
}

export function sumSpend(a: StrategySpend, b: StrategySpend | undefined): StrategySpend {
  if (b === undefined) return a;
  return { turns: a.turns + b.turns, inputTokens: a.inputTokens + b.inputTokens, outputTokens: a.outputTokens + b.outputTokens, costUsd: a.costUsd + b.costUsd };
}
