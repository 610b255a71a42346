import type { ApprovalAnswer, ApprovalAnswerObject } from '../contracts/policy.js';
import { answerObject } from './approval-answer.js';

/**
 * What a `require_approval` verdict comes to once the answers given to `resume` are looked up:
 * `allow` (approved), `deny` (rejected) or `require_approval` (no answer yet: the run parks).
 * `reason` is what the `policy_decision` event says; `answer`, the answer that decided it, in its
 * object form: an approval's edited `args`, a rejection's `message` for the model.
 */
export interface ApprovalDecision {
  readonly approvalId: string;
  readonly decision: 'allow' | 'deny' | 'require_approval';
  readonly reason: string;
  readonly answer?: ApprovalAnswerObject;
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
  const given = approvals.get(approvalId);
  if (given === undefined) return { approvalId, decision: 'require_approval', reason: verdict.reason };
  const answer = answerObject(given);
  if (answer.decision === 'approve') {
    const how = answer.args === undefined ? 'approved' : 'approved with edited arguments';
    return { approvalId, decision: 'allow', reason: `${how}: ${verdict.reason}`, answer };
  }
  return { approvalId, decision: 'deny', reason: `approval rejected: ${verdict.reason}`, answer };
}
