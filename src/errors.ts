/** One invalid field: a dotted path (`bounds.inner.maxTurns`) and what is wrong with it. */
export interface ConfigIssue {
  readonly path: string;
  readonly message: string;
}

/**
 * Thrown only for invalid configuration, before any side effect.
 * Lists every bad field, not just the first.
 */
export class ConfigError extends Error {
  readonly code = 'config_invalid';
  readonly issues: readonly ConfigIssue[];

  constructor(options: { message?: string; issues: readonly ConfigIssue[]; cause?: unknown }) {
    const list = options.issues.map((issue) => `  - ${issue.path || '(root)'}: ${issue.message}`).join('\n');
    super(`${options.message ?? 'Invalid configuration'}:\n${list}`, { cause: options.cause });
    this.name = 'ConfigError';
    this.issues = options.issues;
  }
}

/** A run cannot be started or resumed (unknown run id, corrupt checkpoint, lease held). */
export class RunError extends Error {
  readonly code: string;
  readonly runId: string;

  constructor(options: { code: string; runId: string; message: string; cause?: unknown }) {
    super(options.message, { cause: options.cause });
    this.name = 'RunError';
    this.code = options.code;
    this.runId = options.runId;
  }
}

export function describeError(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  if (typeof error === 'string') return error;
  try {
    return JSON.stringify(error) ?? String(error);
  } catch {
    return String(error);
  }
}
