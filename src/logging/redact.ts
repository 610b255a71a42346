/**
 * Secrets never reach a log line or a store. Two nets: values under secret-looking keys are
 * replaced, and strings that look like API keys are masked wherever they appear.
 */
export const REDACTED = '[REDACTED]';

const SECRET_KEY = /^(api[-_]?key|authorization|proxy-authorization|x-api-key|api-key|password|secret|client[-_]?secret|access[-_]?token|refresh[-_]?token|bearer)$/i;
const SECRET_VALUE = /\b(sk-[A-Za-z0-9_*-]{8,}|sk_[A-Za-z0-9_]{16,}|Bearer\s+[A-Za-z0-9._~+/=-]{8,})/g;

/** Pino `redact` paths covering the same keys at the depths events carry them. */
export const PINO_REDACT_PATHS = [
  'apiKey',
  'authorization',
  'headers.authorization',
  'headers["api-key"]',
  'headers["x-api-key"]',
  '*.apiKey',
  '*.authorization',
  '*.headers.authorization',
  '*.*.apiKey',
  '*.*.authorization',
];

export function redactString(value: string): string {
  return value.replace(SECRET_VALUE, REDACTED);
}

/** A deep copy with secrets replaced; returns the input itself when nothing needed changing. */
export function redactSecrets<T>(value: T, depth = 0): T {
  if (typeof value === 'string') {
    SECRET_VALUE.lastIndex = 0;
    return (SECRET_VALUE.test(value) ? redactString(value) : value) as T;
  }
  if (typeof value !== 'object' || value === null || depth > 12) return value;
  if (Array.isArray(value)) {
    let changed = false;
    const copy = value.map((item) => {
      const next = redactSecrets(item, depth + 1);
      if (next !== item) changed = true;
      return next;
    });
    return (changed ? copy : value) as T;
  }
  let copy: Record<string, unknown> | undefined;
  for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
    const next = SECRET_KEY.test(key) && item !== undefined && item !== null ? REDACTED : redactSecrets(item, depth + 1);
    if (next !== item) {
      copy ??= { ...(value as Record<string, unknown>) };
      copy[key] = next;
    }
  }
  return (copy ?? value) as T;
}
