import type { AuditPolicyDecision, AuditToolCall } from '../contracts/audit.js';
import { answerSummary, shortJson } from '../policy/approval-answer.js';
import type { Colors } from './format.js';

/** Longest JSON of one argument set shown on an audit line; the audit's `--json` has all of it. */
const ARGS_CHARS = 120;

/** A turn's tool call: `deploy`, `deploy✗`, or with an approver's edit `deploy {"env":"prod"} → edited {"env":"staging"}`. */
export function toolCallText(call: AuditToolCall, colors: Colors): string {
  const name = call.isError ? colors.red(`${call.name}✗`) : call.name;
  if (call.proposedArgs === undefined) return name;
  return `${name} ${colors.dim(shortJson(call.proposedArgs, ARGS_CHARS))} → ${colors.yellow(`edited ${shortJson(call.args, ARGS_CHARS)}`)}`;
}

/** What an approver answered, after a policy decision's reason: ` [approval c1, args edited to {...}]`. */
export function approvalText(decision: AuditPolicyDecision, colors: Colors): string {
  if (decision.approvalId === undefined) return '';
  const summary = answerSummary(decision.answer, ARGS_CHARS);
  const child = decision.childRunId === undefined ? '' : ` in run ${decision.childRunId}`;
  return colors.dim(` [approval ${decision.approvalId}${child}${summary === undefined ? '' : `, ${summary}`}]`);
}
