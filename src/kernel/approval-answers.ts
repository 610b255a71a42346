/**
 * The answers a caller gives `kernel.resume(runId, { approvals })`, checked before anything runs:
 * each must be an answer, and an edit's arguments must pass the tool's schema (a ConfigError naming
 * every bad field; nothing is run). The tool of an approval is the one its parking
 * `policy_decision` names. An edit for a tool the kernel does not know yet (a tool source's) is
 * checked when the call runs: a bad one is then an error result, and the tool does not run.
 */
import { readApproval, type ApprovalAnswer } from '../contracts/policy.js';
import { ConfigError, type ConfigIssue } from '../errors.js';
import { validateArguments } from '../tools/validate-arguments.js';
import type { KernelDeps } from './kernel-deps.js';

const SHAPES = `'approve', 'reject', { decision: 'approve', args } or { decision: 'reject', message }`;

export async function checkApprovalAnswers(deps: KernelDeps, runId: string, approvals: Readonly<Record<string, ApprovalAnswer>> | undefined): Promise<void> {
  if (approvals === undefined) return;
  const issues: ConfigIssue[] = [];
  const edits: [string, unknown][] = [];
  for (const [approvalId, answer] of Object.entries(approvals)) {
    const read = readApproval(answer);
    if (read === undefined) issues.push({ path: `approvals.${approvalId}`, message: `must be ${SHAPES}` });
    else if (read.args !== undefined) edits.push([approvalId, read.args.value]);
  }
  if (edits.length > 0) issues.push(...(await editIssues(deps, runId, edits)));
  if (issues.length > 0) throw new ConfigError({ message: `Invalid approvals for run ${runId}`, issues });
}

async function editIssues(deps: KernelDeps, runId: string, edits: readonly [string, unknown][]): Promise<ConfigIssue[]> {
  const parked = new Map<string, { subject: 'task' | 'tool'; toolName?: string }>();
  // A run the store cannot read is the resume's to report (run_not_found, a store error), not this check's.
  const events = await Promise.resolve()
    .then(() => deps.store.readEvents(runId))
    .catch(() => []);
  for (const event of events) {
    if (event.type !== 'policy_decision' || event.decision !== 'require_approval') continue;
    parked.set(event.approvalId ?? event.toolCallId ?? `task:${event.taskId}`, { subject: event.subject, ...(event.toolName === undefined ? {} : { toolName: event.toolName }) });
  }
  return edits.flatMap(([approvalId, args]): ConfigIssue[] => {
    const path = `approvals.${approvalId}.args`;
    const found = parked.get(approvalId);
    if (found?.subject === 'task') return [{ path, message: 'a task approval takes no arguments: answer it approve or reject' }];
    const tool = found?.toolName === undefined ? undefined : deps.tools.own.byName.get(found.toolName);
    if (tool === undefined) return [];
    const checked = validateArguments(tool, args);
    return checked.ok ? [] : [{ path, message: checked.message }];
  });
}
