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
 * An answer to a parked approval, given to `kernel.resume(runId, { approvals })` or `approveRun`:
 * - `'approve'` (or `{ decision: 'approve' }`): the call runs with the model's arguments;
 * - `{ decision: 'approve', args }`: the call runs with `args` instead, validated against the
 *   tool's schema first (invalid: a `ConfigError` naming the bad fields, and nothing runs);
 * - `'reject'` (or `{ decision: 'reject' }`): the model gets an error result naming the gate's reason;
 * - `{ decision: 'reject', message }`: the model gets `message` as the tool's error result.
 * A task's approval (`task:<taskId>`) takes no `args`; its `message` is named in the stop's detail.
 */
export type ApprovalAnswer = 'approve' | 'reject' | ApprovalAnswerObject;

/** The object form of an answer: what events, results and the audit record of it. */
export type ApprovalAnswerObject =
  | { readonly decision: 'approve'; readonly args?: unknown }
  | { readonly decision: 'reject'; readonly message?: string };
