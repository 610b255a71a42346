/**
 * What an eval reports (docs/evals.md, "The report"): each side of a case in numbers, the two
 * trajectories turn by turn, the first turn where they part, and the suite's totals and means.
 * Pure: the same runs give the same report, byte for byte.
 */
import type { EvalCaseReport, EvalReport, EvalRun, EvalScore, EvalSide, EvalToolMode, TrajectoryTurn } from '../contracts/evals.js';
import { canonicalJson } from '../loop/tool-call-key.js';
import { outputOf } from './scorers.js';

export function sideOf(run: EvalRun): EvalSide {
  const { result } = run;
  return {
    runId: run.runId,
    stop: result.stop,
    output: outputOf(result),
    turns: result.metrics.turns,
    toolCalls: result.metrics.toolCalls,
    tokens: result.metrics.inputTokens + result.metrics.outputTokens,
    costUsd: result.metrics.costUsd,
    runtimeMs: result.metrics.runtimeMs,
  };
}

export function trajectoryOf(run: EvalRun | undefined): TrajectoryTurn[] {
  if (run === undefined) return [];
  return run.result.tasks.flatMap((task) =>
    task.turns.map((turn) => ({ task: task.taskId, turn: turn.turn, text: turn.assistantText, toolCalls: turn.toolCalls.map((call) => ({ name: call.name, args: call.args, isError: call.isError })) })),
  );
}

/** The first turn (1-based, over the whole run) whose tool calls, arguments or answer differ; undefined when the trajectories agree. */
export function divergence(baseline: readonly TrajectoryTurn[], candidate: readonly TrajectoryTurn[]): number | undefined {
  const longest = Math.max(baseline.length, candidate.length);
  for (let index = 0; index < longest; index += 1) {
    const [a, b] = [baseline[index], candidate[index]];
    if (a === undefined || b === undefined || turnKey(a) !== turnKey(b)) return index + 1;
  }
  return undefined;
}

function turnKey(turn: TrajectoryTurn): string {
  return canonicalJson({ task: turn.task, text: turn.text, calls: turn.toolCalls.map((call) => [call.name, call.args]) });
}

export function evaluatedCase(name: string, candidate: EvalRun, baseline: EvalRun | undefined, scores: readonly EvalScore[]): EvalCaseReport {
  const trajectories = { baseline: trajectoryOf(baseline), candidate: trajectoryOf(candidate) };
  const diverged = baseline === undefined ? undefined : divergence(trajectories.baseline, trajectories.candidate);
  return {
    name,
    status: 'evaluated',
    ...(baseline === undefined ? {} : { baseline: sideOf(baseline), outputChanged: canonicalJson(outputOf(baseline.result)) !== canonicalJson(outputOf(candidate.result)) }),
    candidate: sideOf(candidate),
    ...(diverged === undefined ? {} : { divergedAt: diverged }),
    scores,
    trajectories,
  };
}

export function suiteReport(suite: string, tools: EvalToolMode, stop: EvalReport['stop'], cases: readonly EvalCaseReport[], scorers: readonly string[]): EvalReport {
  const evaluated = cases.filter((entry) => entry.status === 'evaluated');
  const means: Record<string, number> = {};
  for (const scorer of scorers) {
    const scores = evaluated.flatMap((entry) => entry.scores.filter((score) => score.scorer === scorer).map((score) => score.score));
    means[scorer] = scores.length === 0 ? 0 : round(scores.reduce((sum, score) => sum + score, 0) / scores.length);
  }
  const sum = (pick: (entry: EvalCaseReport) => number | undefined) => round(cases.reduce((total, entry) => total + (pick(entry) ?? 0), 0));
  return {
    suite,
    tools,
    stop,
    cases,
    totals: {
      cases: cases.length,
      evaluated: evaluated.length,
      skipped: cases.filter((entry) => entry.status === 'skipped').length,
      failed: cases.filter((entry) => entry.status === 'failed').length,
      baselineCostUsd: sum((entry) => entry.baseline?.costUsd),
      candidateCostUsd: sum((entry) => entry.candidate?.costUsd),
      candidateTokens: sum((entry) => entry.candidate?.tokens),
    },
    means,
  };
}

/** Sums and means are rounded to 6 decimals: a report is the same whatever order the cases ended in. */
function round(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}
