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
  'workflow_changed',
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

/** A worker was misused, or was handed a job it cannot run (docs/scale-out.md). */
export const WorkerErrorCode = z.enum(['worker_stopped', 'workflow_unknown']);
export type WorkerErrorCode = z.infer<typeof WorkerErrorCode>;

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
  'guardrail_failed',
  'error_verdict',
  'compactor_failed',
  'checkpoint_failed',
  'store_call_failed',
  'listener_failed',
  'worker_retries_exhausted',
  'run_suspended',
  'unrecorded_failure',
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
  ...WorkerErrorCode.options,
  ...FailureCode.options,
]);
export type ErrorCode = z.infer<typeof ErrorCode>;

