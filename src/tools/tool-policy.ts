/**
 * The policy gate of one tool call, and the approvals that answer it (ADR/0005, ADR/0470): what
 * the gate decided and how an approver answered is a `policy_decision` event; a refusal is the
 * error result the model sees; an approval with edited arguments hands them back to the call.
 */
import type { ToolCall } from '../contracts/messages.js';
import type { PolicyVerdict } from '../contracts/policy.js';
import type { ToolResult } from '../contracts/tool.js';
import type { ParkedOutput } from '../contracts/delegation.js';
import { describeError } from '../errors.js';
import { decideApproval } from '../policy/approvals.js';
import { readErrorMessage } from './bounded-value.js';
import { ToolHookFailure } from './tool-hook-failure.js';
import type { ToolCallDeps, ToolRun } from './tool-port.js';
import { refusedResult } from './tool-results.js';

/** The call as the gate is asked about it. */
export interface GatedCall {
  readonly deps: ToolCallDeps;
  readonly run: ToolRun;
  readonly taskId: string;
  readonly taskIndex: number;
  readonly spent: { readonly tokens: number; readonly costUsd: number };
  readonly signal: AbortSignal;
}

/** What the gate made of a call: nothing to say (it runs), a refusal, or an approver's arguments to run it with instead. */
export interface ToolPolicyOutcome {
  /** The call may not run: the result the model sees. */
  readonly refusal?: ToolResult;
  /** An approver allowed it with other arguments (`{ decision: 'approve', args }`): not yet validated. */
  readonly edit?: { readonly approvalId: string; readonly args: unknown };
}

export async function checkToolPolicy(call: ToolCall, args: unknown, scope: GatedCall): Promise<ToolPolicyOutcome> {
  const { deps, run } = scope;
  const gate = deps.policy.checkToolCall;
  if (gate === undefined) return {};
  let verdict: PolicyVerdict;
  try {
    verdict = await gate({ runId: run.runId, taskId: scope.taskId, toolCallId: call.id, name: call.name, args, spent: scope.spent }, scope.signal);
  } catch (error) {
    throw new ToolHookFailure('policy', `policy gate threw on tool "${call.name}": ${describeError(error)}`);
  }
  const decision = { taskId: scope.taskId, taskIndex: scope.taskIndex, toolCallId: call.id, toolName: call.name };
  if (verdict.decision === 'require_approval') {
    const approval = decideApproval(verdict, call.id, run.approvals);
    const { approvalId, answer } = approval;
    run.emit({ type: 'policy_decision', subject: 'tool', ...decision, decision: approval.decision, reason: approval.reason, approvalId, ...(answer === undefined ? {} : { answer }) });
    if (answer?.decision === 'approve') return answer.args === undefined ? {} : { edit: { approvalId, args: answer.args } };
    if (answer?.decision === 'reject') {
      // The approver's message is the tool's error result, as the model sees it; the gate's reason stays on the record.
      const message = answer.message === undefined ? `rejected by the approver: ${verdict.reason}` : readErrorMessage(answer.message, deps.tools.limits.toolResultChars);
      return { refusal: refusedResult(call, message, { policy: { decision: 'deny', reason: verdict.reason, approvalId } }) };
    }
    return {
      refusal: refusedResult(call, `awaiting approval (${approvalId}): ${verdict.reason}`, { policy: { decision: 'require_approval', reason: verdict.reason, approvalId } }),
    };
  }
  run.emit({ type: 'policy_decision', subject: 'tool', ...decision, decision: verdict.decision, reason: verdict.reason ?? 'allowed' });
  if (verdict.decision === 'allow') return {};
  return {
    refusal: refusedResult(call, `denied by policy: ${verdict.reason}`, { policy: { decision: 'deny', reason: verdict.reason, ...(verdict.halt === true ? { halt: true } : {}) } }),
  };
}

/** The result of an agent tool whose child parked: awaiting the child's approvals, as a policy gate's would be. */
export function parkedResult(call: ToolCall, parked: ParkedOutput, scope: Pick<GatedCall, 'run' | 'taskId' | 'taskIndex'>): ToolResult {
  const approvalId = parked.approvalIds.join(', ');
  const reason = `child run ${parked.runId} is awaiting approval: ${parked.detail}`;
  scope.run.emit({
    type: 'policy_decision',
    subject: 'tool',
    taskId: scope.taskId,
    taskIndex: scope.taskIndex,
    toolCallId: call.id,
    toolName: call.name,
    decision: 'require_approval',
    reason,
    approvalId,
    childRunId: parked.runId,
  });
  return { ...refusedResult(call, `awaiting approval (${approvalId}): ${reason}`, { policy: { decision: 'require_approval', reason, approvalId } }), executed: true };
}
