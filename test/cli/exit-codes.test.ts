import { describe, expect, it } from 'vitest';
import { StopReason } from 'dualloop';
import { exitCodeFor } from '../../src/cli/exit-codes.js';

describe('exitCodeFor', () => {
  it('maps every stop reason to the exit code of DESIGN.md section 8', () => {
    const codes = Object.fromEntries(StopReason.options.map((reason) => [reason, exitCodeFor(reason)]));
    expect(codes).toEqual({
      planner_stopped: 0,
      goal_achieved: 0,
      tool_terminated: 0,
      max_turns: 2,
      max_tool_calls: 2,
      max_runtime: 2,
      max_workflow_steps: 2,
      max_session_runtime: 2,
      max_replans: 2,
      budget_exhausted: 2,
      loop_detected: 2,
      invalid_output: 2,
      guardrail_tripped: 3,
      policy_denied: 3,
      awaiting_approval: 3,
      error: 4,
      dependency_failed: 4,
      context_canceled: 130,
    });
  });
});
