import type { ApprovalAnswer } from '../contracts/policy.js';

/**
 * What a `require_approval` verdict comes to once the answers given to `resume` are looked up:
 * `allow` (approved), `deny` (rejected) or `require_approval` (no answer yet: the run parks).
 * `reason` is what the `policy_decision` event says.
 */
export interface ApprovalDecision {
  readonly approvalId: string;
  readonly decision: 'allow' | 'deny' | 'require_approval';
  readonly reason: string;
}

/**
 * The one approval lookup of the task gate and the tool gate. The approval id is the verdict's,
 * or `defaultId` (a tool call's id, or `task:<taskId>` for a task: ADR/0005).
 */
export function decideApproval(
  verdict: { readonly reason: string; readonly approvalId?: string },
  defaultId: string,
  approvals: ReadonlyMap<string, ApprovalAnswer>,
): ApprovalDecision {
  const approvalId = verdict.approvalId ?? defaultId;
  const answer = approvals.get(approvalId);
  if (answer === 'approve') return { approvalId, decision: 'allow', reason: `approved: ${verdict.reason}` };
  if (answer === 'reject') return { approvalId, decision: 'deny', reason: `approval rejected: ${verdict.reason}` };
  return { approvalId, decision: 'require_approval', reason: verdict.reason };
}
