/**
 * A fork of a graph run (docs/workflows.md, docs/time-travel.md): `{ task: '<id>' }` runs that
 * task and every task downstream of it again, and takes every other task's result from the
 * source's latest checkpoint; `{ task: '<id>', turn: T }` continues that task from the start of
 * its turn T instead of from scratch. Tasks downstream include fan-out items, whose results are
 * dropped with their task. The fork's counters are those of the results it keeps.
 */
import { rebuiltOrThrow } from '../checkpoint/read-checkpoint.js';
import type { ForkEdit } from '../contracts/fork.js';
import { EMPTY_METRICS, type TaskResult, type WorkflowMetrics } from '../contracts/results.js';
import type { RunRecord } from '../contracts/store.js';
import type { TaskSpec } from '../contracts/turn-protocol.js';
import { EMPTY_PROGRESS, type ActiveTask, type WorkflowProgress } from '../contracts/workflow-protocol.js';
import { RunError } from '../errors.js';
import { dependenciesOf } from '../graph/task-graph.js';
import { fanOutTaskOf } from '../contracts/task-id.js';
import { applyForkEdit } from './fork-edit.js';
import type { KernelDeps } from './kernel-deps.js';

export interface GraphFork {
  readonly progress: WorkflowProgress;
  readonly tasks: readonly TaskSpec[];
  /** The tasks that run again, in task order. */
  readonly rerun: readonly string[];
}

/** The task and every task that waits for it, directly or not. */
export function downstreamOf(taskId: string, tasks: readonly TaskSpec[]): ReadonlySet<string> {
  const found = new Set([taskId]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const task of tasks) {
      if (found.has(task.id) || !dependenciesOf(task, tasks, true).some((id) => found.has(id))) continue;
      found.add(task.id);
      grew = true;
    }
  }
  return found;
}

/** A fan-out item's task (`<taskId>[<position>]`), or `undefined`. */
function itemOf(taskId: string, tasks: readonly TaskSpec[]): string | undefined {
  const owner = fanOutTaskOf(taskId);
  return owner !== undefined && tasks.some((task) => task.id === owner && task.forEach !== undefined) ? owner : undefined;
}

export async function graphForkState(deps: KernelDeps, record: RunRecord, task: TaskSpec, turn: number | undefined, edit: ForkEdit | undefined): Promise<GraphFork> {
  const { store } = deps;
  const latest = rebuiltOrThrow(await store.loadCheckpoint(record.runId), record.runId);
  const rerun = downstreamOf(task.id, record.tasks);
  const kept = (latest?.view.progress.results ?? []).filter((result) => !rerun.has(result.taskId) && !rerun.has(itemOf(result.taskId, record.tasks) ?? ''));
  const resumed = turn === undefined || turn === 1 ? undefined : await branchAtTurn(deps, record, task, turn);
  // The edit applies as at a list's point: to the task continued from a turn (as the running task), else to the queues.
  const base: WorkflowProgress = { ...EMPTY_PROGRESS, results: kept, metrics: metricsOf(kept, record.tasks), ...(resumed === undefined ? {} : { active: resumed }) };
  const edited = applyForkEdit(base, record.tasks, task.index, edit);
  const { active, ...progress } = edited.progress;
  return {
    progress: active === undefined ? progress : { ...progress, branches: [active] },
    // Bounds edits hold for the tasks that run again; the kept ones ran under their own.
    tasks: edited.tasks.map((spec, index) => (rerun.has(spec.id) ? spec : record.tasks[index]!)),
    rerun: record.tasks.filter((spec) => rerun.has(spec.id)).map((spec) => spec.id),
  };
}

/** The task as its history holds it at the start of turn `turn`: after the entry of turn `turn − 1`. */
async function branchAtTurn(deps: KernelDeps, record: RunRecord, task: TaskSpec, turn: number): Promise<ActiveTask> {
  const { store } = deps;
  const entries = await store.listCheckpoints(record.runId);
  const entry = entries.find((candidate) => candidate.kind === 'turn' && candidate.taskId === task.id && candidate.turn === turn - 1);
  const turns = entries.filter((candidate) => candidate.kind === 'turn' && candidate.taskId === task.id).map((candidate) => (candidate.turn ?? 0) + 1);
  const notFound = () =>
    new RunError({
      code: 'fork_point_not_found',
      runId: record.runId,
      message: `run ${record.runId} has no turn ${turn} of task "${task.id}" to fork from; its turns are ${turns.length === 0 ? 'none past the first' : [1, ...turns].join(', ')}`,
    });
  if (entry === undefined) throw notFound();
  const checkpoint = rebuiltOrThrow(await store.loadCheckpoint(record.runId, { sequence: entry.sequence }), record.runId);
  const branch = checkpoint?.view.progress.branches?.find((active) => active.task.id === task.id);
  if (branch === undefined) throw notFound();
  return branch;
}

/** Counters of the kept results: each task or item that ran is a step (a fan-out's own result and a task that never ran are not). */
function metricsOf(results: readonly TaskResult[], tasks: readonly TaskSpec[]): WorkflowMetrics {
  return results.reduce<WorkflowMetrics>((metrics, result) => {
    const spec = tasks.find((task) => task.id === result.taskId);
    if (spec?.forEach !== undefined) return metrics;
    return {
      ...metrics,
      workflowSteps: metrics.workflowSteps + (result.stop.reason === 'dependency_failed' ? 0 : 1),
      turns: metrics.turns + result.turnCount,
      toolCalls: metrics.toolCalls + result.toolCalls,
      inputTokens: metrics.inputTokens + result.usage.inputTokens,
      outputTokens: metrics.outputTokens + result.usage.outputTokens,
      costUsd: metrics.costUsd + result.costUsd,
    };
  }, EMPTY_METRICS);
}
