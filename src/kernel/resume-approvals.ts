/**
 * The answers a resume applies (ADR/0470): those sent through the store (`approveRun`, `dualloop
 * approve`), then the caller's, which win. Checked before the run is touched: a malformed answer,
 * or edited arguments the waiting tool's schema refuses, is one ConfigError naming every field.
 */
import { hasControlChannel } from '../contracts/control.js';
import type { ApprovalAnswer } from '../contracts/policy.js';
import { ConfigError, type ConfigIssue } from '../errors.js';
import { approvalAnswerIssues, approvalAnswersIssues } from '../policy/approval-answer.js';
import { editIssues } from '../policy/approval-edits.js';
import { pendingApprovals, type PendingApproval } from '../policy/pending-approvals.js';
import type { KernelDeps } from './kernel-deps.js';

export async function resumeApprovals(deps: KernelDeps, runId: string, given: Readonly<Record<string, ApprovalAnswer>> | undefined): Promise<Map<string, ApprovalAnswer>> {
  const shape = approvalAnswersIssues(given);
  if (shape.length > 0) throw invalid(runId, shape);
  const { store } = deps;
  const stored = hasControlChannel(store) ? await store.approvalAnswers(runId) : new Map<string, ApprovalAnswer>();
  const answers = new Map([...stored, ...Object.entries(given ?? {})]);
  // Only an answer in object form can edit arguments or be malformed in the store.
  if (![...answers.values()].some((answer) => typeof answer === 'object')) return answers;
  let pending: readonly PendingApproval[] | undefined;
  const tools = [...deps.tools.own.byName.values(), ...deps.tools.sources];
  const issues: ConfigIssue[] = [];
  for (const [approvalId, answer] of answers) {
    const found = approvalAnswerIssues(answer, `approvals.${approvalId}`);
    if (found.length === 0 && typeof answer === 'object') found.push(...editIssues(approvalId, answer, (pending ??= await pendingApprovals(store, runId)), tools, `approvals.${approvalId}`));
    const fromStore = given?.[approvalId] === undefined;
    issues.push(...(fromStore ? found.map((issue) => ({ ...issue, message: `${issue.message} (an answer sent through the store: give another in resume's approvals)` })) : found));
  }
  if (issues.length > 0) throw invalid(runId, issues);
  return answers;
}

function invalid(runId: string, issues: readonly ConfigIssue[]): ConfigError {
  return new ConfigError({ message: `Invalid approvals for the resume of run ${runId}`, issues });
}
