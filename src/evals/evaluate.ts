/**
 * `kernel.evaluate(cases, options)` (docs/evals.md): each case runs as a new run of the candidate
 * — the kernel's own options — with tools answered from the baseline's recording, then every
 * scorer judges it. Cases run `concurrency` at a time under one `maxCostUsd`; each run's id is
 * `<suite>.<case>` and its record says `evalOf: { runId, suite }`, so an interrupted suite run
 * again takes up where it stopped: a case that finished is scored again from the store, a case cut
 * mid-run is resumed, only the others start.
 */
import type { EvalCase, EvalCaseReport, EvalReport, EvalRun, EvalScore, EvaluateOptions } from '../contracts/evals.js';
import type { ForkPoint } from '../contracts/fork.js';
import type { WorkflowResult } from '../contracts/results.js';
import type { CheckpointStore, RunRecord } from '../contracts/store.js';
import { isResumableStop } from '../contracts/stop-rules.js';
import { describeError } from '../contracts/describe-error.js';
import { ConfigError, type ConfigIssue } from '../errors.js';
import { evaluatedCase, suiteReport } from './eval-report.js';
import { casePlans, type CasePlan } from './eval-cases.js';
import { recordingOf, toolsForCase } from './recorded-tools.js';
import type { Tool, ToolSource } from '../contracts/tool.js';

/** What evaluate needs of the kernel it runs in: its store, its tools, and a kernel of its options with other tools and store. */
export interface EvalHost {
  readonly store: CheckpointStore;
  readonly tools: readonly (Tool | ToolSource)[];
  readonly candidate: (tools: readonly (Tool | ToolSource)[], store: CheckpointStore, maxCostUsd: number | undefined) => CandidateKernel;
}

/** The part of a kernel a case uses. */
export interface CandidateKernel {
  start(tasks: never, options: { readonly runId: string; readonly signal?: AbortSignal }): { readonly result: Promise<WorkflowResult> };
  fork(runId: string, options: { readonly at: ForkPoint; readonly runId: string; readonly signal?: AbortSignal; readonly acceptChange: true }): Promise<{ readonly result: Promise<WorkflowResult> }>;
  resume(runId: string, options: { readonly signal?: AbortSignal; readonly acceptChange: true }): Promise<{ readonly result: Promise<WorkflowResult> }>;
}

export async function evaluate(host: EvalHost, cases: readonly EvalCase[], options: EvaluateOptions): Promise<EvalReport> {
  const tools = options.tools ?? 'recorded';
  checkOptions(options);
  const plans = await casePlans(host.store, cases, options.suite);
  const scorerNames = options.scorers.map((scorer) => scorer.name);
  const reports: (EvalCaseReport | undefined)[] = plans.map(() => undefined);
  let spent = 0;
  let next = 0;
  let done = 0;
  let stop: EvalReport['stop'] = 'completed';
  const budgetLeft = () => (options.maxCostUsd === undefined ? undefined : options.maxCostUsd - spent);

  const worker = async () => {
    for (;;) {
      const index = next;
      if (index >= plans.length) return;
      next += 1;
      const plan = plans[index]!;
      const left = budgetLeft();
      if (options.signal?.aborted === true || (left !== undefined && left <= 0)) {
        if (options.signal?.aborted === true) stop = 'context_canceled';
        else stop = 'budget_exhausted';
        reports[index] = { name: plan.name, status: 'skipped', problem: stop === 'budget_exhausted' ? "the suite's maxCostUsd was spent before it started" : 'the suite was cancelled', scores: [] };
      } else {
        reports[index] = await runCase(host, plan, tools, left, options);
        spent += reports[index]!.candidate?.costUsd ?? 0;
      }
      done += 1;
      options.onCase?.(reports[index]!, done, plans.length);
    }
  };
  await Promise.all(Array.from({ length: Math.min(options.concurrency ?? 1, plans.length) }, worker));
  if (options.signal?.aborted === true) stop = 'context_canceled';
  const left = budgetLeft();
  if (stop === 'completed' && left !== undefined && left <= 0 && reports.some((entry) => entry?.status === 'skipped')) stop = 'budget_exhausted';
  return suiteReport(options.suite, tools, stop, reports as EvalCaseReport[], scorerNames);
}

async function runCase(host: EvalHost, plan: CasePlan, mode: NonNullable<EvaluateOptions['tools']>, budget: number | undefined, options: EvaluateOptions): Promise<EvalCaseReport> {
  try {
    const candidate = await candidateRun(host, plan, mode, budget, options.signal);
    // A run the suite's own cancellation cut short is not scored: evaluating again resumes it.
    if (options.signal?.aborted === true && candidate.result.stop.reason === 'context_canceled') {
      return { name: plan.name, status: 'skipped', problem: 'the suite was cancelled while this case ran: evaluate again to resume it', scores: [] };
    }
    const scores: EvalScore[] = [];
    for (const scorer of options.scorers) scores.push(await scored(scorer, candidate, plan));
    return evaluatedCase(plan.name, candidate, plan.baseline, scores);
  } catch (error) {
    return { name: plan.name, status: 'failed', problem: describeError(error), scores: [] };
  }
}

/** The case's run: its finished result from the store, or the interrupted run resumed, or a new run. */
async function candidateRun(host: EvalHost, plan: CasePlan, mode: NonNullable<EvaluateOptions['tools']>, budget: number | undefined, signal: AbortSignal | undefined): Promise<EvalRun> {
  const { store } = host;
  const runId = plan.runId;
  const finished = (await store.getRun(runId)) === undefined ? undefined : await store.loadResult(runId);
  if (finished !== undefined && !isResumableStop(finished.stop.reason)) return { runId, result: finished };
  const evalOf = { runId: plan.baseline?.runId ?? runId, suite: plan.suite };
  const kernel = host.candidate(toolsForCase(host.tools, mode, recordingOf(plan.baseline?.result)), withEvalOf(store, runId, evalOf), budget);
  const withSignal = signal === undefined ? {} : { signal };
  if ((await store.getRun(runId)) !== undefined) return { runId, result: await (await kernel.resume(runId, { ...withSignal, acceptChange: true })).result };
  if (plan.at !== undefined && plan.baseline !== undefined) {
    return { runId, result: await (await kernel.fork(plan.baseline.runId, { at: plan.at, runId, ...withSignal, acceptChange: true })).result };
  }
  // The tasks are the case's as given, checked by start() like any (a bad one fails the case, naming it).
  return { runId, result: await kernel.start(plan.tasks as never, { runId, ...withSignal }).result };
}

async function scored(scorer: EvaluateOptions['scorers'][number], candidate: EvalRun, plan: CasePlan): Promise<EvalScore> {
  try {
    const verdict = await scorer.score(candidate, plan.baseline, plan.expected);
    const raw = typeof verdict === 'number' ? verdict : verdict?.score;
    const reason = typeof verdict === 'object' && verdict !== null && typeof verdict.reason === 'string' ? verdict.reason : undefined;
    if (typeof raw !== 'number' || !Number.isFinite(raw) || raw < 0 || raw > 1) return { scorer: scorer.name, score: 0, reason: `the scorer answered ${String(raw)}, not a number in [0, 1]` };
    return { scorer: scorer.name, score: raw, ...(reason === undefined ? {} : { reason }) };
  } catch (error) {
    return { scorer: scorer.name, score: 0, reason: `the scorer threw: ${describeError(error)}` };
  }
}

/** The store a case's run is recorded in: the kernel's, with `evalOf` on the case's run record. */
function withEvalOf(store: CheckpointStore, runId: string, evalOf: NonNullable<RunRecord['evalOf']>): CheckpointStore {
  return new Proxy(store, {
    get(target, property) {
      const member: unknown = Reflect.get(target, property, target);
      if (property === 'createRun') return (record: RunRecord) => (target.createRun(record.runId === runId ? { ...record, evalOf } : record));
      return typeof member === 'function' ? (member as (...args: unknown[]) => unknown).bind(target) : member;
    },
  });
}

function checkOptions(options: EvaluateOptions): void {
  const issues: ConfigIssue[] = [];
  if (typeof options?.suite !== 'string' || !/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(options.suite)) issues.push({ path: 'suite', message: 'must be 1–64 letters, digits, ".", "_" or "-" (it prefixes the cases\' run ids)' });
  if (!Array.isArray(options?.scorers) || options.scorers.some((scorer) => typeof scorer?.name !== 'string' || typeof scorer.score !== 'function')) issues.push({ path: 'scorers', message: 'must be a list of { name, score(candidate, baseline, expected) }' });
  const names = (options?.scorers ?? []).map((scorer) => scorer?.name);
  const duplicate = names.find((name, index) => names.indexOf(name) !== index);
  if (duplicate !== undefined) issues.push({ path: 'scorers', message: `two scorers are named "${duplicate}": give one a name of its own` });
  if (options?.tools !== undefined && !['recorded', 'recorded-or-live', 'live'].includes(options.tools)) issues.push({ path: 'tools', message: 'must be "recorded", "recorded-or-live" or "live"' });
  if (options?.concurrency !== undefined && !(Number.isInteger(options.concurrency) && options.concurrency > 0)) issues.push({ path: 'concurrency', message: 'must be a positive integer' });
  if (options?.maxCostUsd !== undefined && !(typeof options.maxCostUsd === 'number' && options.maxCostUsd > 0)) issues.push({ path: 'maxCostUsd', message: 'must be a positive number' });
  if (issues.length > 0) throw new ConfigError({ message: 'Invalid evaluate options', issues });
}
