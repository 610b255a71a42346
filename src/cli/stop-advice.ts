import type { StopCondition } from '../contracts/stop.js';

/**
 * Model failures that a resume would meet again unchanged: the key, the account, the model name
 * or the request must change first. `openaiModel`'s codes (src/providers/openai-errors.ts), the
 * scripted model's `script_exhausted` and a throwing hook's `hook_failed`.
 */
export const FAILURES_RESUME_CANNOT_FIX: readonly string[] = [
  'auth_failed',
  'permission_denied',
  'not_found',
  'bad_request',
  'context_length_exceeded',
  'content_filter',
  'quota_exceeded',
  'script_exhausted',
  'hook_failed',
];

const MODEL_FAILURE = /\bmodel failure: ([a-z_]+):/;

/** Whether `dualloop resume` can get further than this stop without the user changing anything. */
export function resumeCanHelp(stop: StopCondition): boolean {
  if (stop.reason !== 'error') return stop.reason === 'context_canceled' || stop.reason === 'max_session_runtime' || stop.reason === 'awaiting_approval';
  const code = MODEL_FAILURE.exec(stop.detail)?.[1];
  return code === undefined || !FAILURES_RESUME_CANNOT_FIX.includes(code);
}

/** The stop as one line for stderr: `stop: <reason> — <detail>`, the detail's whitespace folded. */
export function stopLine(stop: StopCondition): string {
  return `stop: ${stop.reason} — ${stop.detail.replace(/\s+/g, ' ').trim()}`;
}
