/**
 * The shape of an approval answer (`ApprovalAnswer`, src/contracts/policy.ts), checked where an
 * answer enters: `kernel.resume(runId, { approvals })`, `approveRun`, the CLI and the viewer. What
 * the tool's schema says of edited `args` is checked apart (approval-edits.ts), by who knows the tool.
 */
import type { ApprovalAnswer, ApprovalAnswerObject } from '../contracts/policy.js';
import type { ConfigIssue } from '../errors.js';

const EXPECTED = "must be 'approve', 'reject', { decision: 'approve', args? } or { decision: 'reject', message? }";

/** What is wrong with one answer, each issue under `path` (`approvals.call-1`); empty when it is an answer. */
export function approvalAnswerIssues(answer: unknown, path: string): ConfigIssue[] {
  if (answer === 'approve' || answer === 'reject') return [];
  if (typeof answer !== 'object' || answer === null || Array.isArray(answer)) return [{ path, message: EXPECTED }];
  const { decision, ...rest } = answer as Record<string, unknown>;
  if (decision !== 'approve' && decision !== 'reject') return [{ path: `${path}.decision`, message: `must be 'approve' or 'reject' (${EXPECTED})` }];
  const field = decision === 'approve' ? 'args' : 'message';
  const issues: ConfigIssue[] = Object.keys(rest)
    .filter((key) => key !== field)
    .map((key) => ({ path: `${path}.${key}`, message: `is not a field of a '${decision}' answer (it takes \`${field}\`)` }));
  if (decision === 'approve' && rest.args !== undefined && !isJsonData(rest.args)) issues.push({ path: `${path}.args`, message: 'must be JSON data: the arguments the tool runs with' });
  if (decision === 'reject' && rest.message !== undefined && (typeof rest.message !== 'string' || rest.message.trim() === '')) {
    issues.push({ path: `${path}.message`, message: 'must be a non-empty string: what the model is told' });
  }
  return issues;
}

/** Every answer of a map by approval id, each under `<path>.<approvalId>`. */
export function approvalAnswersIssues(answers: unknown, path = 'approvals'): ConfigIssue[] {
  if (answers === undefined) return [];
  if (typeof answers !== 'object' || answers === null || Array.isArray(answers)) return [{ path, message: 'must be an object of answers by approval id' }];
  return Object.entries(answers).flatMap(([approvalId, answer]) => approvalAnswerIssues(answer, `${path}.${approvalId}`));
}

/** The object form of a valid answer, with no field left `undefined`: what events and the audit record. */
export function answerObject(answer: ApprovalAnswer): ApprovalAnswerObject {
  if (answer === 'approve' || answer === 'reject') return { decision: answer };
  if (answer.decision === 'approve') return answer.args === undefined ? { decision: 'approve' } : { decision: 'approve', args: answer.args };
  return answer.message === undefined ? { decision: 'reject' } : { decision: 'reject', message: answer.message };
}

/** The arguments an answer puts in place of the model's, if it edits them. */
export function editedArgs(answer: ApprovalAnswer | undefined): { readonly args: unknown } | undefined {
  return typeof answer === 'object' && answer.decision === 'approve' && answer.args !== undefined ? { args: answer.args } : undefined;
}

/** What an answer says beyond approve/reject, for people: `args edited to {…}`, `the model was told: "…"`; undefined for a plain answer. */
export function answerSummary(answer: ApprovalAnswerObject | undefined, maxChars = 120): string | undefined {
  if (answer?.decision === 'approve' && answer.args !== undefined) return `args edited to ${shortJson(answer.args, maxChars)}`;
  if (answer?.decision === 'reject' && answer.message !== undefined) return `the model was told: ${shortJson(answer.message, maxChars)}`;
  return undefined;
}

/** A value's JSON, cut to `maxChars` with `…`. */
export function shortJson(value: unknown, maxChars: number): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length <= maxChars ? text : `${text.slice(0, maxChars - 1)}…`;
}

/** A value JSON carries as it is (a cycle counts as too deep): what a store keeps and a model could have sent. */
function isJsonData(value: unknown): boolean {
  return !hasLostParts(value, 0);
}

/** Parts JSON drops or changes without a word: functions, symbols, non-finite numbers, dates, class instances. */
function hasLostParts(value: unknown, depth: number): boolean {
  if (depth > 1_000) return true;
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return false;
  if (typeof value === 'number') return !Number.isFinite(value);
  if (Array.isArray(value)) return value.some((item) => hasLostParts(item, depth + 1));
  if (typeof value !== 'object') return true;
  const prototype = Object.getPrototypeOf(value) as unknown;
  if (prototype !== Object.prototype && prototype !== null) return true;
  return Object.values(value).some((item) => item === undefined || hasLostParts(item, depth + 1));
}
