/**
 * A one-line description of anything thrown: an Error's message (or name), a string as is, other
 * values as JSON. Pure (no imports), so that the machines may use it (ADR/0240).
 */
export function describeError(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  if (typeof error === 'string') return error;
  try {
    return JSON.stringify(error) ?? String(error);
  } catch {
    return String(error);
  }
}
