import type { KernelEvent } from '../../contracts/events.js';
import { approvalIdOf, waitingDecisions } from '../../policy/pending-approvals.js';

/** An approval a parked run waits for, as the page offers it to be answered. */
export interface WaitingApproval {
  readonly approvalId: string;
  readonly subject: 'task' | 'tool';
  readonly taskId: string;
  readonly toolName?: string;
  /** The gate's reason. */
  readonly reason: string;
  /** The model's arguments for the call (its latest `tool_execution_start`), the form's starting text. */
  readonly proposedArgs?: unknown;
  /** Set when the decision waits on a delegated run: it is answered there (its own page). */
  readonly childRunId?: string;
}

/** The approvals of a run whose stream ends parked (`awaiting_approval`); none for a run that is not. */
export function waitingApprovals(events: readonly KernelEvent[]): readonly WaitingApproval[] {
  const last = events[events.length - 1];
  if (last?.type !== 'workflow_end' || last.stop.reason !== 'awaiting_approval') return [];
  const argsByCall = new Map<string, unknown>();
  for (const event of events) if (event.type === 'tool_execution_start') argsByCall.set(event.toolCallId, event.args);
  const seen = new Set<string>();
  return waitingDecisions(events).flatMap((decision) => {
    const approvalId = approvalIdOf(decision);
    if (seen.has(approvalId)) return [];
    seen.add(approvalId);
    const proposed = decision.toolCallId === undefined ? undefined : argsByCall.get(decision.toolCallId);
    return [
      {
        approvalId,
        subject: decision.subject,
        taskId: decision.taskId,
        reason: decision.reason,
        ...(decision.toolName === undefined ? {} : { toolName: decision.toolName }),
        ...(proposed === undefined ? {} : { proposedArgs: proposed }),
        ...(decision.childRunId === undefined ? {} : { childRunId: decision.childRunId }),
      },
    ];
  });
}
