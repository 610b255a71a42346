import { z } from 'zod';

/**
 * The closed set of error codes (docs/errors.md says when each happens and what to do about it).
 * Every error dualloop throws carries one as `code`, and so does every `error` event and every
 * stop with reason `error`. Codes are grouped by family, one error class per family (src/errors.ts);
 * a code belongs to exactly one family. New codes may be added; existing ones keep their meaning.
 */
export const ConfigErrorCode = z.enum(['config_invalid']);
export type ConfigErrorCode = z.infer<typeof ConfigErrorCode>;

/** A run cannot be started, resumed, forked or controlled, or a store refused a write about it. */
export const RunErrorCode = z.enum([
  'run_not_found',
  'run_exists',
  'run_active',
  'run_finished',
  'run_held',
  'lease_lost',
  'checkpoint_corrupt',
  'checkpoint_future_version',
  'checkpoint_out_of_order',
  'event_out_of_order',
  'fork_point_not_found',
  'approval_not_pending',
  'approval_answered',
  'control_invalid',
  'control_unsupported',
]);
export type RunErrorCode = z.infer<typeof RunErrorCode>;

/** The store itself cannot be used (ADR/0024). */
export const StoreErrorCode = z.enum(['store_corrupt', 'store_not_dualloop', 'store_future_schema', 'store_failed']);
export type StoreErrorCode = z.infer<typeof StoreErrorCode>;

/** An engine adapter was misused (docs/engine-adapter.md). */
export const EngineErrorCode = z.enum(['engine_busy', 'engine_state_mismatch', 'engine_state_invalid']);
export type EngineErrorCode = z.infer<typeof EngineErrorCode>;

/** An MCP server could not be used (docs/mcp.md). */
export const McpErrorCode = z.enum(['server_start_failed', 'server_closed']);
export type McpErrorCode = z.infer<typeof McpErrorCode>;

/**
 * A part failed while a run was going on. These are reported as data, never thrown at the caller:
 * an `error` event and a stop with reason `error` carry the code (ADR/0095, ADR/0170).
 */
export const FailureCode = z.enum([
  'model_failed',
  'plan_invalid',
  'tool_failed',
  'hook_failed',
  'policy_failed',
  'stop_evaluator_failed',
  'compactor_failed',
  'checkpoint_failed',
  'store_call_failed',
  'listener_failed',
  'worker_retries_exhausted',
  'run_suspended',
  'internal_error',
  'task_stopped',
  'run_ended',
]);
export type FailureCode = z.infer<typeof FailureCode>;

export const ErrorCode = z.enum([
  ...ConfigErrorCode.options,
  ...RunErrorCode.options,
  ...StoreErrorCode.options,
  ...EngineErrorCode.options,
  ...McpErrorCode.options,
  ...FailureCode.options,
]);
export type ErrorCode = z.infer<typeof ErrorCode>;

/**
 * The part whose failure an `error` event reports (docs/events.md lists them). Every run or task that
 * ends `error` has exactly one `error` event naming the part, emitted before its `task_end`/`workflow_end`.
 * - `model`: the model (or planner) call failed or threw.
 * - `tool`: reserved for tool failures that end a task; a throwing tool is an error tool result instead.
 * - `hook`: `beforeToolCall`, `afterToolCall` or `transformContext` threw.
 * - `checkpoint`: saving a checkpoint or the final result failed (`store.saveCheckpoint`, `store.saveResult`).
 * - `store`: any other store write or read the run needs (`appendEvent`, `recordToolResult`, the run
 *   record, the lease).
 * - `policy`: a policy gate (`checkTask`, `checkToolCall`) threw.
 * - `stop_evaluator`: a user stop evaluator or `shouldStopAfterTurn` threw.
 * - `compactor`: the compactor threw, or returned no list of messages.
 * - `listener`: something the kernel reports to threw: the `logger` or the `inspect` observer.
 * - `internal`: a bug in dualloop itself.
 * - `worker`: a run's slices kept crashing the workers that ran them (dead-lettered, ADR/0202).
 */
export type ErrorScope = 'model' | 'tool' | 'hook' | 'checkpoint' | 'store' | 'policy' | 'stop_evaluator' | 'compactor' | 'listener' | 'internal' | 'worker';

/** The code an `error` event or stop carries when its emitter names only the failed part. */
const SCOPE_CODES: Readonly<Record<ErrorScope, ErrorCode>> = {
  model: 'model_failed',
  tool: 'tool_failed',
  hook: 'hook_failed',
  checkpoint: 'checkpoint_failed',
  store: 'store_call_failed',
  policy: 'policy_failed',
  stop_evaluator: 'stop_evaluator_failed',
  compactor: 'compactor_failed',
  listener: 'listener_failed',
  internal: 'internal_error',
  worker: 'worker_retries_exhausted',
};

export function errorCodeOfScope(scope: ErrorScope): ErrorCode {
  return SCOPE_CODES[scope];
}
