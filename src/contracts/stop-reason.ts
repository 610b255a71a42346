import { z } from 'zod';

/**
 * The closed set of reasons a loop may end with. Both loops end with exactly one of these;
 * `docs/loop-control.md` explains each one and the priority order below.
 */
export const StopReason = z.enum([
  'planner_stopped',
  'goal_achieved',
  'tool_terminated',
  'loop_detected',
  'max_turns',
  'max_tool_calls',
  'max_runtime',
  'max_workflow_steps',
  'max_session_runtime',
  'max_replans',
  'budget_exhausted',
  'policy_denied',
  'awaiting_approval',
  'context_canceled',
  'invalid_output',
  'dependency_failed',
  'guardrail_tripped',
  'error',
]);
export type StopReason = z.infer<typeof StopReason>;
