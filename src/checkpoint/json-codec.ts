import { describeError, FailureError } from '../errors.js';

/**
 * JSON for store rows. Plain `JSON.stringify` first (the fast path: everything the kernel hands
 * over is JSON data); a value it cannot write — a BigInt in a tool result — is retried with
 * BigInts written as decimal strings, and a cycle is a clear error rather than a silent loss.
 */
export function toJson(value: unknown, what: string): string {
  try {
    return JSON.stringify(value) ?? 'null';
  } catch (first) {
    try {
      return JSON.stringify(value, (_key, item: unknown) => (typeof item === 'bigint' ? item.toString() : item)) ?? 'null';
    } catch {
      // The store's guard wraps it in a StoreError `store_failed` naming the file and the run.
      throw new FailureError({ code: 'store_call_failed', message: `${what} cannot be stored as JSON: ${describeError(first)}`, cause: first });
    }
  }
}

/** Parses a stored row; not `ok` when it is not valid JSON (the caller names the run and the row). */
export function fromJson(text: unknown): { ok: true; value: unknown } | { ok: false; message: string } {
  if (typeof text !== 'string') return { ok: false, message: `expected JSON text, found ${text === null ? 'NULL' : typeof text}` };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : String(error) };
  }
}
