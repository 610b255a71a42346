/**
 * The approvals a parked run waits for, read from what every store keeps: the `require_approval`
 * decisions of its last segment (since its last `workflow_start`). A decision that waits on a
 * delegated run (`childRunId`, an `agentTool` whose child parked) stands for that run's own
 * pending approvals, which the parent's answers reach on resume (docs/delegation.md).
 */
import type { KernelEvent, PolicySubject } from '../contracts/events.js';
import type { CheckpointStore } from '../contracts/store.js';

export interface PendingApproval {
  readonly approvalId: string;
  readonly subject: PolicySubject;
  /** The run that asked: the run named, or a delegated run below it. */
  readonly runId: string;
  readonly taskId: string;
  readonly toolCallId?: string;
  readonly toolName?: string;
  /** The agent tools from the run named down to the run that asked; empty for the run's own approvals. */
  readonly via: readonly string[];
}

/** Delegation is bounded by `maxDelegationDepth`; a record that loops is not followed past this. */
const MAX_DEPTH = 32;

type Decision = Extract<KernelEvent, { type: 'policy_decision' }>;

/** The `require_approval` decisions of a run's last segment (since its last `workflow_start`), in order. */
export function waitingDecisions(events: readonly KernelEvent[]): Decision[] {
  let start = 0;
  events.forEach((event, index) => {
    if (event.type === 'workflow_start') start = index;
  });
  return events.slice(start).filter((event): event is Decision => event.type === 'policy_decision' && event.decision === 'require_approval');
}

/** The approval id a decision waits on: the gate's, else the tool call's, else the task's. */
export function approvalIdOf(decision: Decision): string {
  return decision.approvalId ?? decision.toolCallId ?? `task:${decision.taskId}`;
}

export async function pendingApprovals(store: Pick<CheckpointStore, 'readEvents'>, runId: string, depth = 0): Promise<PendingApproval[]> {
  const pending: PendingApproval[] = [];
  for (const event of waitingDecisions(await store.readEvents(runId))) {
    const below = event.childRunId === undefined || depth >= MAX_DEPTH ? [] : await pendingApprovals(store, event.childRunId, depth + 1);
    if (below.length > 0) {
      pending.push(...below.map((approval) => ({ ...approval, via: [event.toolName ?? '', ...approval.via] })));
      continue;
    }
    pending.push({
      approvalId: approvalIdOf(event),
      subject: event.subject,
      runId,
      taskId: event.taskId,
      ...(event.toolCallId === undefined ? {} : { toolCallId: event.toolCallId }),
      ...(event.toolName === undefined ? {} : { toolName: event.toolName }),
      via: [],
    });
  }
  const seen = new Set<string>();
  return pending.filter((approval) => !seen.has(approval.approvalId) && seen.add(approval.approvalId) !== undefined);
}
