/** Arguments whose canonical JSON is longer than this are keyed by their length and a digest. */
export const VERBATIM_KEY_CHARS = 256;

/**
 * A stable key for "the same tool call": the name plus the arguments serialised with sorted
 * object keys, so `{a:1,b:2}` and `{b:2,a:1}` count as one call. The key is kept in every turn
 * checkpoint (loop detection resumes with it): long arguments are keyed by their length and a
 * 64-bit digest instead of a full copy (ADR 0104). Pure: the machines use it.
 */
export function toolCallKey(name: string, args: unknown): string {
  const json = canonicalJson(args);
  return json.length <= VERBATIM_KEY_CHARS ? `${name}:${json}` : `${name}:#${json.length}:${digest(json)}`;
}

export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'undefined';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).sort();
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`).join(',')}}`;
}

/**
 * Two 32-bit FNV-1a hashes with different offset bases, as 16 hex digits. Not cryptographic: a
 * collision could at worst count two different long calls as a repeat.
 */
function digest(text: string): string {
  let low = 0x811c9dc5;
  let high = 0x050c5d1f;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    low = Math.imul(low ^ code, 0x01000193);
    high = Math.imul(high ^ code, 0x01000193) ^ (low >>> 15);
  }
  return (high >>> 0).toString(16).padStart(8, '0') + (low >>> 0).toString(16).padStart(8, '0');
}
