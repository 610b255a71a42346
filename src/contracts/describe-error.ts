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

/**
 * A thrown value described for a message about hostile data, where reading it may throw again (a
 * getter or Proxy trap): `name: message` of an Error, else the value as text, at most 200
 * characters; never throws.
 */
export function describeThrown(error: unknown): string {
  try {
    return error instanceof Error ? `${error.name}: ${error.message}`.slice(0, 200) : String(error).slice(0, 200);
  } catch {
    return 'it threw';
  }
}
