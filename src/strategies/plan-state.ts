/**
 * The state of a plan strategy, carried in the workflow context's `strategy` field and saved with
 * every checkpoint. It comes back from a checkpoint as `unknown`, so it is parsed here with zod.
 */
import { z } from 'zod';
import { lazySchema } from '../contracts/lazy-schema.js';
import { StopReason } from '../contracts/stop.js';
import type { PlanStep } from './plan-parser.js';

/** A step that ran, with the summary the next prompts (and a resumed run) build on. */
export interface StepRecord {
  readonly taskId: string;
  readonly description: string;
  readonly reason: StopReason;
  readonly summary: string;
}

export interface PlanProgress {
  /** 1 for the first plan; every revision (replan or review) adds one. */
  readonly version: number;
  /** The steps of the current plan version (after a revision: the steps still to run). */
  readonly steps: readonly PlanStep[];
  /** Position in `steps` of the next step to run (or the running one). */
  readonly cursor: number;
  /** The task id of the step handed to the inner loop and not yet settled. */
  readonly current?: string;
  /** Every step that ran, across plan versions, in order. */
  readonly done: readonly StepRecord[];
  /** Revisions after a failed step, counted against `bounds.outer.maxReplans`. */
  readonly replansUsed: number;
}

export interface PlanState {
  /** Calls the planner model answered in this run (its `callIndex`), when it is not the executor model. */
  readonly plannerCalls: number;
  /** Absent until the first plan is made. */
  readonly plan?: PlanProgress;
}

const count = lazySchema(() => z.number().int().nonnegative());

const PlanStateSchema = lazySchema(() => z.object({
  plannerCalls: count(),
  plan: z
    .object({
      version: z.number().int().positive(),
      steps: z.array(z.object({ description: z.string() })),
      cursor: count(),
      current: z.string().optional(),
      done: z.array(z.object({ taskId: z.string(), description: z.string(), reason: StopReason, summary: z.string() })),
      replansUsed: count(),
    })
    .optional(),
}));

export const INITIAL_PLAN_STATE: PlanState = { plannerCalls: 0 };

export function parsePlanState(value: unknown): { ok: true; state: PlanState } | { ok: false; problem: string } {
  if (value === undefined) return { ok: true, state: INITIAL_PLAN_STATE };
  const parsed = PlanStateSchema().safeParse(value);
  if (parsed.success) return { ok: true, state: parsed.data as PlanState };
  const issues = parsed.error.issues.slice(0, 3).map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`).join('; ');
  return { ok: false, problem: `the plan strategy's saved state is invalid (${issues})` };
}

/** The task id of a step: plan version and position, so that ids stay unique across revisions. */
export function stepTaskId(plan: PlanProgress): string {
  return `plan-${plan.version}-step-${plan.cursor + 1}`;
}
