/** `dualloop approve`'s flags as an answer: `--allow [--args JSON]` or `--deny [--message TEXT]`; a string that is no answer says what is wrong. */
import type { ApprovalAnswer } from '../contracts/policy.js';

export function approvalAnswer(flags: Record<string, unknown>): ApprovalAnswer | string {
  const allow = flags['allow'] === true;
  const deny = flags['deny'] === true;
  if (!allow && !deny) return 'approve needs --allow or --deny';
  const args = flags['args'];
  const message = flags['message'];
  if (deny && args !== undefined) return '--args goes with --allow (the arguments the call runs with)';
  if (allow && message !== undefined) return '--message goes with --deny (what the model is told)';
  if (deny) return typeof message === 'string' ? (message.trim() === '' ? '--message must not be empty' : { decision: 'reject', message }) : 'reject';
  if (typeof args !== 'string') return 'approve';
  let parsed: unknown;
  try {
    parsed = JSON.parse(args);
  } catch (error) {
    return `--args is not JSON: ${error instanceof Error ? error.message : String(error)}`;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return '--args must be a JSON object, such as {"env":"staging"}';
  return { decision: 'approve', args: parsed };
}
