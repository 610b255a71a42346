import type { z } from 'zod';
import type { ConfigIssue } from '../errors.js';

/** zod issues as `ConfigIssue`s with dotted paths (`bounds.inner.maxTurns`). */
export function zodIssues(error: z.ZodError, prefix = ''): ConfigIssue[] {
  return error.issues.map((issue) => ({
    path: [prefix, ...issue.path.map(String)].filter((part) => part !== '').join('.'),
    message: issue.message,
  }));
}
