/**
 * The failed parts an `error` event names, and the code each one stands for. Pure (no imports at
 * run time), so that the machines may use it (ADR/0240).
 */
import type { ErrorCode } from './error-codes.js';

/**
 * The part whose failure an `error` event reports (docs/events.md lists them). Every run or task that
 * ends `error` has exactly one `error` event naming the part, emitted before its `task_end`/`workflow_end`.
 * - `model`: the model (or planner) call failed or threw.
 * - `tool`: a tool source (`mcpTools`) did not open when the run needed its tools (ADR/0143); a throwing
 *   tool is an error tool result instead.
 * - `hook`: `beforeToolCall`, `afterToolCall` or `transformContext` threw.
 * - `checkpoint`: saving a checkpoint or the final result failed (`store.saveCheckpoint`, `store.saveResult`).
 * - `store`: any other store write or read the run needs (`appendEvent`, `recordToolResult`, the run
 *   record, the lease).
 * - `policy`: a policy gate (`checkTask`, `checkToolCall`) threw.
 * - `stop_evaluator`: a user stop evaluator or `shouldStopAfterTurn` threw.
 * - `guardrail`: a guardrail's check threw or answered something else than `{ tripped: boolean }`;
 *   the task ends `guardrail_tripped`, not `error` (a guardrail fails closed, docs/guardrails.md).
 * - `compactor`: the compactor threw, or returned no list of messages.
 * - `listener`: something the kernel reports to threw: the `logger` or the `inspect` observer.
 * - `internal`: a bug in dualloop itself.
 * - `worker`: a run's slices kept crashing the workers that ran them (dead-lettered, ADR/0202).
 */
export type ErrorScope = 'model' | 'tool' | 'hook' | 'checkpoint' | 'store' | 'policy' | 'stop_evaluator' | 'guardrail' | 'compactor' | 'listener' | 'internal' | 'worker';

/** The code an `error` event or stop carries when its emitter names only the failed part. */
const SCOPE_CODES: Readonly<Record<ErrorScope, ErrorCode>> = {
  model: 'model_failed',
  tool: 'tool_failed',
  hook: 'hook_failed',
  checkpoint: 'checkpoint_failed',
  store: 'store_call_failed',
  policy: 'policy_failed',
  stop_evaluator: 'stop_evaluator_failed',
  guardrail: 'guardrail_failed',
  compactor: 'compactor_failed',
  listener: 'listener_failed',
  internal: 'internal_error',
  worker: 'worker_retries_exhausted',
};

export function errorCodeOfScope(scope: ErrorScope): ErrorCode {
  return SCOPE_CODES[scope];
}
