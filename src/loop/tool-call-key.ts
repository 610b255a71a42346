/**
 * A stable key for "the same tool call": the name plus the arguments serialised with sorted
 * object keys, so `{a:1,b:2}` and `{b:2,a:1}` count as one call.
 */
export function toolCallKey(name: string, args: unknown): string {
  return `${name}:${canonicalJson(args)}`;
}

export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'undefined';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).sort();
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`).join(',')}}`;
}
