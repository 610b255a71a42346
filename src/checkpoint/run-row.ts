// Shared by the SQL stores (SQLite, Postgres): what a row of `runs` (with its result) says.
import type { ForkOrigin, ForkPoint } from '../contracts/fork.js';
import type { StopCondition } from '../contracts/stop.js';
import type { EvalOrigin, RunParent, RunSummary } from '../contracts/store.js';

type Row = Record<string, unknown>;

/** The `forkOf` of a run row: both columns are set for a fork, neither otherwise. */
export function forkOfRow(row: Row, parseJson: (text: unknown) => unknown): { forkOf?: ForkOrigin } {
  if (row.fork_of_run_id === null || row.fork_of_run_id === undefined) return {};
  return { forkOf: { runId: String(row.fork_of_run_id), at: parseJson(row.fork_of_at) as ForkPoint } };
}

/** The `parent` of a run row: both columns are set for a delegated run, neither otherwise. */
export function parentRow(row: Row): { parent?: RunParent } {
  if (row.parent_run_id === null || row.parent_run_id === undefined) return {};
  return { parent: { runId: String(row.parent_run_id), toolCallId: String(row.parent_tool_call_id) } };
}

/** The `evalOf` of a run row: both columns are set for a run an eval started, neither otherwise. */
export function evalOfRow(row: Row): { evalOf?: EvalOrigin } {
  if (row.eval_of_run_id === null || row.eval_of_run_id === undefined) return {};
  return { evalOf: { runId: String(row.eval_of_run_id), suite: String(row.eval_of_suite) } };
}

/** A line of `listRuns` from a run row joined with its result and latest checkpoint. */
export function summarizeRunRow(row: Row, parseJson: (text: unknown) => unknown): RunSummary {
  const stop = row.result_stop === null ? undefined : (parseJson(row.result_stop) as StopCondition);
  return {
    runId: String(row.run_id),
    ...(row.name === null ? {} : { name: String(row.name) }),
    createdAt: Number(row.created_at),
    ...forkOfRow(row, parseJson),
    ...parentRow(row),
    ...evalOfRow(row),
    ...(stop === undefined ? {} : { stop }),
    tasksDone: Number(row.result_done ?? row.checkpoint_done ?? 0),
    tasksTotal: Number(row.tasks_total),
  };
}
