import type { StopReason } from '../contracts/stop.js';

/** The command's exit codes (DESIGN.md section 8). */
export const EXIT = Object.freeze({
  completed: 0,
  bound: 2,
  policy: 3,
  error: 4,
  usage: 64,
  canceled: 130,
});

/**
 * The exit code of a run that stopped for `reason`: 0 natural completion; 2 a bound
 * (counts, deadlines, budgets, loop detection); 3 policy denied, awaiting approval or a guardrail tripped;
 * 4 error; 130 canceled.
 */
export function exitCodeFor(reason: StopReason): number {
  switch (reason) {
    case 'planner_stopped':
    case 'goal_achieved':
    case 'tool_terminated':
      return EXIT.completed;
    case 'policy_denied':
    case 'awaiting_approval':
    case 'guardrail_tripped':
      return EXIT.policy;
    case 'context_canceled':
      return EXIT.canceled;
    case 'error':
    case 'dependency_failed':
      return EXIT.error;
    case 'max_turns':
    case 'max_tool_calls':
    case 'max_runtime':
    case 'max_workflow_steps':
    case 'max_session_runtime':
    case 'max_replans':
    case 'budget_exhausted':
    case 'loop_detected':
    case 'invalid_output':
      return EXIT.bound;
  }
}
