/**
 * The rules over stop reasons: priority, natural completion, bounds, resumability. Pure (no
 * imports at run time), so that the machines and their reducers may use them (ADR/0240).
 */
import type { StopReason } from './stop-reason.js';

/**
 * Priority when several reasons hold at one check: a lower rank wins.
 * DESIGN.md section 2; `loop_detected` sits between budgets and counting bounds, `invalid_output`
 * with the counting bounds, `dependency_failed` below everything (ADR/0420).
 */
const RANK: Readonly<Record<StopReason, number>> = {
  context_canceled: 0,
  error: 1,
  // A safety stop: it outranks natural completion (a tripped answer is no completion) and every
  // bound; an error found at the same check is named first (ADR/0480).
  guardrail_tripped: 1,
  planner_stopped: 2,
  goal_achieved: 2,
  tool_terminated: 2,
  policy_denied: 3,
  awaiting_approval: 3,
  max_runtime: 4,
  max_session_runtime: 4,
  budget_exhausted: 5,
  loop_detected: 6,
  max_turns: 7,
  max_workflow_steps: 7,
  max_replans: 7,
  max_tool_calls: 8,
  // The answer still did not match the task's output schema after `maxOutputRepairs` repairs: a
  // count bound, ranked with the turn bound.
  invalid_output: 7,
  // Never the cause: the dependency's own stop outranks it, so the workflow names the cause.
  dependency_failed: 9,
};

export function stopPriority(reason: StopReason): number {
  return RANK[reason];
}

/** Natural completion: the work ended on its own terms, not because something cut it. */
export function isNaturalCompletion(reason: StopReason): boolean {
  return reason === 'planner_stopped' || reason === 'goal_achieved' || reason === 'tool_terminated';
}

/** Stops caused by a configured bound (counts, deadlines, budgets, repetition, output repairs). */
export function isBoundStop(reason: StopReason): boolean {
  return RANK[reason] >= 4 && reason !== 'dependency_failed';
}

/**
 * Stops after which `kernel.resume(runId)` continues the run; the task that stopped with one runs
 * again. Every other stop is final.
 */
export const RESUMABLE_REASONS: ReadonlySet<StopReason> = new Set<StopReason>(['context_canceled', 'awaiting_approval', 'error', 'max_session_runtime']);

export function isResumableStop(reason: StopReason): boolean {
  return RESUMABLE_REASONS.has(reason);
}

/** Picks the highest-priority candidate; the earliest wins among equal ranks. */
export function pickStop<T extends { readonly reason: StopReason }>(candidates: readonly (T | undefined)[]): T | undefined {
  let best: T | undefined;
  for (const candidate of candidates) {
    if (candidate !== undefined && (best === undefined || RANK[candidate.reason] < RANK[best.reason])) best = candidate;
  }
  return best;
}
