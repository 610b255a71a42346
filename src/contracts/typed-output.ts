/**
 * Typed task outputs (docs/api.md, "Typed outputs"): what checking an answer against a task's
 * `output` schema yields, and the task's output state while it runs. Pure: the machine reads these;
 * the check itself (zod) lives in src/output/.
 */

/** One way an answer failed the schema: where (`items.0.name`, `(root)`) and what. */
export interface OutputIssue {
  readonly path: string;
  readonly message: string;
}

/**
 * An answer checked against the task's schema: the parsed value, or the issues (at most
 * `MAX_OUTPUT_ISSUES`, each message at most `MAX_ISSUE_CHARS` characters, and a last one
 * counting the rest), so every event, stop detail and repair message built from them is bounded.
 */
export type OutputCheck = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly issues: readonly OutputIssue[] };

/** A typed task's output while it runs (the turn machine's `output`). */
export interface OutputState {
  /** Answers that did not match and went back to the model; checkpointed, so a resume continues the count. */
  readonly repairs: number;
  /** The final answer that matched the schema, once one did: the task's `TaskResult.output`. */
  readonly matched?: { readonly value: unknown };
}

export const MAX_OUTPUT_ISSUES = 10;
export const MAX_ISSUE_CHARS = 200;

/** Issues cut to the bounds above: the first `MAX_OUTPUT_ISSUES`, then one saying how many more there were. */
export function boundedIssues(issues: readonly OutputIssue[]): readonly OutputIssue[] {
  const kept = issues.slice(0, MAX_OUTPUT_ISSUES).map((issue) => ({ path: cut(issue.path), message: cut(issue.message) }));
  const more = issues.length - kept.length;
  return more > 0 ? [...kept, { path: '…', message: `and ${more} more issue${more === 1 ? '' : 's'}` }] : kept;
}

function cut(text: string): string {
  return text.length <= MAX_ISSUE_CHARS ? text : `${text.slice(0, MAX_ISSUE_CHARS - 1)}…`;
}

/** `path: message; path: message` — how stop details and events name the issues. */
export function describeOutputIssues(issues: readonly OutputIssue[]): string {
  return issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ');
}
