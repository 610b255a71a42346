import type { WorkflowMetrics } from './results.js';

/**
 * A policy gate's answer. `deny` on a tool call becomes an error result the model sees
 * (with `halt: true` the task also stops `policy_denied`); `deny` on a task stops the workflow
 * `policy_denied`. `require_approval` parks the run (`awaiting_approval`) until
 * `kernel.resume(runId, { approvals })` answers the `approvalId`.
 */
export type PolicyVerdict =
  | { readonly decision: 'allow'; readonly reason?: string }
  | { readonly decision: 'deny'; readonly reason: string; readonly halt?: boolean }
  | { readonly decision: 'require_approval'; readonly reason: string; readonly approvalId?: string };

export interface TaskPolicyRequest {
  readonly runId: string;
  readonly task: { readonly id: string; readonly index: number; readonly description: string };
  /** Workflow metrics so far: steps, turns, tool calls, tokens, cost, runtime. */
  readonly metrics: WorkflowMetrics;
}

export interface ToolPolicyRequest {
  readonly runId: string;
  readonly taskId: string;
  readonly toolCallId: string;
  readonly name: string;
  readonly args: unknown;
  /** Workflow metrics before the running task, plus the running task's usage so far. */
  readonly spent: { readonly tokens: number; readonly costUsd: number };
}

/**
 * Asked before every task (the first included) and before every validated tool call.
 * Either method may be async and may throw: a throw ends the task or run `error` with
 * a `policy` error event. A missing method allows everything of its kind.
 */
export interface PolicyGate {
  readonly checkTask?: (request: TaskPolicyRequest, signal: AbortSignal) => PolicyVerdict | Promise<PolicyVerdict>;
  readonly checkToolCall?: (request: ToolPolicyRequest, signal: AbortSignal) => PolicyVerdict | Promise<PolicyVerdict>;
}

/**
 * An answer to a parked approval, given to `kernel.resume(runId, { approvals })` or sent with
 * `approveRun`. `{ decision: 'approve', args }` approves a tool call with corrected arguments (they
 * are validated against the tool's schema; the proposed, approved and executed arguments are all
 * kept); `{ decision: 'reject', message }` rejects it and gives the model `message` as the tool's
 * error result.
 */
export type ApprovalAnswer =
  | 'approve'
  | 'reject'
  | { readonly decision: 'approve'; readonly args: unknown }
  | { readonly decision: 'reject'; readonly message: string };

/** An answer read defensively (it may come from a store): its decision, and the edit or message it carries. */
export interface ReadApproval {
  readonly decision: 'approve' | 'reject';
  /** Approved with these arguments instead of the proposed ones. */
  readonly args?: { readonly value: unknown };
  readonly message?: string;
}

/** What an answer comes to, or undefined for something that is not an answer. */
export function readApproval(answer: unknown): ReadApproval | undefined {
  if (answer === 'approve' || answer === 'reject') return { decision: answer };
  if (typeof answer !== 'object' || answer === null) return undefined;
  const { decision, args, message } = answer as { decision?: unknown; args?: unknown; message?: unknown };
  if (decision === 'approve') return 'args' in answer ? { decision, args: { value: args } } : { decision };
  if (decision === 'reject') return typeof message === 'string' && message.trim() !== '' ? { decision, message } : { decision };
  return undefined;
}
