/**
 * A suite's cases, checked and planned before any runs (docs/evals.md, "Cases"): each recorded
 * run must exist and have ended; each case gets its run id `<suite>.<case>` (its name, or its
 * run id, or `case-<n>`, made safe for a run id); two cases may not share one.
 */
import type { EvalCase, EvalRun } from '../contracts/evals.js';
import type { ForkPoint } from '../contracts/fork.js';
import type { CheckpointStore } from '../contracts/store.js';
import type { TaskSpec } from '../contracts/turn-protocol.js';
import { ConfigError, type ConfigIssue } from '../errors.js';

export interface CasePlan {
  readonly name: string;
  readonly suite: string;
  /** The case's run. */
  readonly runId: string;
  readonly baseline?: EvalRun;
  readonly at?: ForkPoint;
  /** What the candidate runs: the baseline's tasks, or the case's own. */
  readonly tasks: readonly unknown[];
  readonly expected: unknown;
}

export async function casePlans(store: CheckpointStore, cases: readonly EvalCase[], suite: string): Promise<CasePlan[]> {
  if (!Array.isArray(cases) || cases.length === 0) throw new ConfigError({ message: 'Invalid evaluate cases', issues: [{ path: 'cases', message: 'must be a non-empty list of cases' }] });
  const issues: ConfigIssue[] = [];
  const plans: CasePlan[] = [];
  const ids = new Map<string, number>();
  for (const [index, entry] of cases.entries()) {
    const planned = await planCase(store, entry, index, suite);
    if ('problem' in planned) {
      issues.push({ path: `cases.${index}${planned.field === undefined ? '' : `.${planned.field}`}`, message: planned.problem });
      continue;
    }
    const first = ids.get(planned.runId);
    if (first !== undefined) issues.push({ path: `cases.${index}`, message: `has the same run id as cases.${first} (${planned.runId}): give one a name` });
    ids.set(planned.runId, index);
    plans.push(planned);
  }
  if (issues.length > 0) throw new ConfigError({ message: 'Invalid evaluate cases', issues });
  return plans;
}

async function planCase(store: CheckpointStore, entry: EvalCase, index: number, suite: string): Promise<CasePlan | { problem: string; field?: string }> {
  if (typeof entry !== 'object' || entry === null) return { problem: 'must be { runId, at?, expected?, name? } or { tasks, expected?, name? }' };
  const name = typeof entry.name === 'string' && entry.name.trim() !== '' ? entry.name : 'runId' in entry && typeof entry.runId === 'string' ? entry.runId : `case-${index + 1}`;
  const runId = `${suite}.${safe(name)}`;
  const expected = entry.expected;
  if ('tasks' in entry) {
    if (!Array.isArray(entry.tasks) || entry.tasks.length === 0) return { problem: 'must be a non-empty list of tasks', field: 'tasks' };
    return { name, suite, runId, tasks: entry.tasks, expected };
  }
  if (typeof entry.runId !== 'string') return { problem: 'must name a recorded run (runId) or give tasks' };
  const record = await store.getRun(entry.runId);
  if (record === undefined) return { problem: `no run "${entry.runId}" in the ${store.kind} store`, field: 'runId' };
  const result = await store.loadResult(entry.runId);
  if (result === undefined) return { problem: `run "${entry.runId}" has not ended: it has no result to compare with`, field: 'runId' };
  return {
    name,
    suite,
    runId,
    baseline: { runId: entry.runId, result },
    ...(entry.at === undefined ? {} : { at: entry.at }),
    tasks: record.tasks.map(taskInputOf),
    expected,
  };
}

/** A recorded task as `kernel.start` takes it again (its declared shape, not a fan-out item's). */
function taskInputOf(spec: TaskSpec): Record<string, unknown> {
  return {
    id: spec.id,
    description: spec.description,
    bounds: spec.bounds,
    ...(spec.output === undefined ? {} : { output: spec.output }),
    ...(spec.dependsOn === undefined ? {} : { dependsOn: spec.dependsOn }),
    ...(spec.forEach === undefined ? {} : { forEach: spec.forEach }),
    ...(spec.forEachFailure === undefined ? {} : { forEachFailure: spec.forEachFailure }),
    ...(spec.guardrails === undefined ? {} : { guardrails: spec.guardrails }),
  };
}

/** A case name as part of a run id: other characters become `_`, at most 60 of them. */
function safe(name: string): string {
  const cleaned = name.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 60);
  return /^[A-Za-z0-9]/.test(cleaned) ? cleaned : `c${cleaned}`.slice(0, 60);
}
