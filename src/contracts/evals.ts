/**
 * Evals from recorded runs (docs/evals.md): replay recorded runs — or task lists — with a
 * candidate workflow (another model, prompt, bounds, tools), serve tool calls from the recording,
 * score each candidate against its baseline and an expected value, and report.
 */
import type { ForkPoint } from './fork.js';
import type { WorkflowResult } from './results.js';
import type { StopCondition } from './stop.js';

/** Where a case's tool calls are answered. */
export type EvalToolMode =
  /** A call whose name and arguments match the baseline's next unused recorded call gets that result; any other is an error result saying so. */
  | 'recorded'
  /** As `recorded`, but an unmatched call runs the tool. */
  | 'recorded-or-live'
  /** Every call runs the tool. */
  | 'live';

/**
 * A case: a recorded run (its tasks run again with the candidate; with `at`, a fork of it at that
 * point, as `kernel.fork` takes it), or a task list without a baseline. `expected` is what scorers
 * compare the candidate's output with; `name` names the case in the report (default its run id or
 * `case-<n>`).
 */
export type EvalCase =
  | { readonly runId: string; readonly at?: ForkPoint; readonly expected?: unknown; readonly name?: string }
  | { readonly tasks: readonly unknown[]; readonly expected?: unknown; readonly name?: string };

/** One side of a case, as scorers see it. */
export interface EvalRun {
  readonly runId: string;
  readonly result: WorkflowResult;
}

/** A scorer's verdict: a number in [0, 1], with a reason when it has one. */
export type ScoreVerdict = number | { readonly score: number; readonly reason?: string };

export interface EvalScorer {
  readonly name: string;
  /** `baseline` is absent for a case given as a task list. May be async. */
  score(candidate: EvalRun, baseline: EvalRun | undefined, expected: unknown): ScoreVerdict | Promise<ScoreVerdict>;
}

export interface EvaluateOptions {
  /** Names the suite: the cases' run ids are `<suite>.<case>`, and each records `evalOf: { runId, suite }`. */
  readonly suite: string;
  readonly scorers: readonly EvalScorer[];
  /** Default `recorded`. */
  readonly tools?: EvalToolMode;
  /** Cases running at once (default 1). */
  readonly concurrency?: number;
  /** One budget for the whole suite (USD): once spent, the cases not started are skipped and the suite stops `budget_exhausted`. */
  readonly maxCostUsd?: number;
  readonly signal?: AbortSignal;
  /** Told as each case ends. */
  readonly onCase?: (report: EvalCaseReport, done: number, total: number) => void;
}

/** What a run's side of a case came to, for the table. */
export interface EvalSide {
  readonly runId: string;
  readonly stop: StopCondition;
  readonly output: unknown;
  readonly turns: number;
  readonly toolCalls: number;
  readonly tokens: number;
  readonly costUsd: number;
  readonly runtimeMs: number;
}

export interface EvalScore {
  readonly scorer: string;
  readonly score: number;
  readonly reason?: string;
}

export interface EvalCaseReport {
  readonly name: string;
  /** `evaluated`; `skipped` when the suite's budget ran out before it started; `failed` when it could not run (its `problem` says why). */
  readonly status: 'evaluated' | 'skipped' | 'failed';
  readonly problem?: string;
  readonly baseline?: EvalSide;
  readonly candidate?: EvalSide;
  /** The baseline's and the candidate's outputs differ (deep comparison). */
  readonly outputChanged?: boolean;
  /** The first turn (1-based, counted across tasks) where the two trajectories differ: a tool call, its arguments or the answer. */
  readonly divergedAt?: number;
  readonly scores: readonly EvalScore[];
  /** The trajectories, turn by turn, for the HTML report: what the model said and which tools it called. */
  readonly trajectories?: { readonly baseline: readonly TrajectoryTurn[]; readonly candidate: readonly TrajectoryTurn[] };
}

export interface TrajectoryTurn {
  readonly task: string;
  readonly turn: number;
  readonly text: string;
  readonly toolCalls: readonly { readonly name: string; readonly args: unknown; readonly isError: boolean }[];
}

export interface EvalReport {
  readonly suite: string;
  readonly tools: EvalToolMode;
  /** `completed`, or why the suite stopped early: `budget_exhausted` (its `maxCostUsd`), `context_canceled`. */
  readonly stop: 'completed' | 'budget_exhausted' | 'context_canceled';
  readonly cases: readonly EvalCaseReport[];
  readonly totals: {
    readonly cases: number;
    readonly evaluated: number;
    readonly skipped: number;
    readonly failed: number;
    readonly baselineCostUsd: number;
    readonly candidateCostUsd: number;
    readonly candidateTokens: number;
  };
  /** Mean score per scorer over the evaluated cases. */
  readonly means: Readonly<Record<string, number>>;
}
