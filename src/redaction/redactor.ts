/**
 * The redactor: one per kernel, built from the secret values the kernel was configured with
 * (src/redaction/secret-values.ts) and the key-shaped token patterns. It replaces each configured
 * value and each token by `[redacted]` wherever it occurs — inside any string of any field, in
 * object keys, at any depth — and the value under a secret-looking key whatever it is. Binary
 * values (typed arrays, `ArrayBuffer`) become `[Uint8Array of N bytes]`: bytes are not searched.
 *
 * Contract: `value()` never throws and never mutates its input. It returns the input itself when
 * nothing needed changing, else a copy. It remembers the last clean roots it handed out, so an
 * object that just passed (an event the sink cleaned, then appended to the store; a tool result
 * the runner cleaned, then recorded) is not walked again, and each root that held a secret keeps
 * its one copy. Objects handed to the boundary must not be mutated afterwards (the kernel's state
 * is immutable). Nothing else is remembered: a weak set of every clean object cost more heap, GC
 * and CPU than a second walk (issue 16).
 */
import { partialToken, REDACTED, SECRET_KEY, SHORTEST_TOKEN, TOKEN_SOURCES } from './secret-patterns.js';

/**
 * Deeper structures than this are replaced whole: a redactor must not overflow its stack. The
 * kernel's redactor reaches deeper (`redactionDepth`): past what the `limits` let a tool result or
 * arguments hold, so their own markers are what a deep value shows.
 */
export const MAX_REDACTION_DEPTH = 64;
/** The deepest a limited value sits inside what the redactor walks (an event, a checkpoint entry). */
export const ENVELOPE_DEPTH = 32;
/** Streamed text held back as a possible key is released past this length (real keys are shorter). */
export const MAX_HELD_TOKEN = 4_096;
const TOO_DEEP = '[redacted: nested too deep to inspect]';
const UNREADABLE = '[redacted: unreadable value]';
const CIRCULAR = '[circular]';

export class Redactor {
  private readonly pattern: RegExp;
  /** A root that held a secret → its clean copy, so that the same input always gives the same copy. */
  private readonly seen = new WeakMap<object, unknown>();
  /**
   * The clean roots handed out last: what the sink cleaned is what the store is handed next, and a
   * tool result cleaned by the runner is recorded next. A short ring, not a weak set: inserting
   * every event into a weak collection cost more (ephemeron tables, GC) than walking it again.
   */
  private readonly recent: (object | undefined)[] = new Array<object | undefined>(RECENT_ROOTS).fill(undefined);
  private recentAt = 0;
  /** Whether `seen` holds anything: until a secret was found, it need not be asked. */
  private replaced = false;

  /** The most streamed text held back at once. */
  readonly maxHold: number;
  /** Characters that occur in a configured value before its last: only a text ending in one can end in a prefix of it. */
  private readonly prefixChars: Set<string>;
  /** No configured value or token is shorter: a shorter string is clean without a search. */
  private readonly shortest: number;
  /** Object keys seen so far (a run uses few): each key's clean form and whether it names a secret. */
  private readonly keys = new Map<string, { readonly clean: string; readonly secret: boolean }>();

  /**
   * `values`: the configured secrets, already expanded (secret-values.ts); at least 4 characters each.
   * `maxDepth`: structures nested deeper are replaced whole by a marker.
   */
  constructor(
    private readonly values: readonly string[],
    private readonly maxDepth: number = MAX_REDACTION_DEPTH,
  ) {
    this.maxHold = Math.max(MAX_HELD_TOKEN, ...values.map((value) => value.length));
    this.prefixChars = new Set(values.flatMap((value) => [...value.slice(0, -1)]));
    const literals = [...new Set(values)].sort((left, right) => right.length - left.length).map(escapeRegExp);
    this.pattern = new RegExp([...literals, ...TOKEN_SOURCES].join('|'), 'g');
    this.shortest = Math.min(SHORTEST_TOKEN, ...values.map((value) => value.length));
  }

  /** The text with every configured value and key-shaped token replaced. */
  text(value: string): string {
    if (value.length < this.shortest) return value;
    this.pattern.lastIndex = 0;
    if (!this.pattern.test(value)) return value;
    this.pattern.lastIndex = 0;
    return value.replace(this.pattern, REDACTED);
  }

  /** A copy of `value` without secrets (the value itself when it had none). Never throws. */
  value<T>(value: T): T {
    return this.walk(value, 0, []) as T;
  }

  /**
   * As `value`, for an object that may have changed since the redactor last saw it (an event body
   * stamped in place by the sink after an inspector saw it as an action's parameters): its own
   * fields are read again; what they hold is still remembered.
   */
  fresh<T extends object>(value: T): T {
    let result: unknown;
    try {
      result = this.walkObject(value, 0, [value]);
    } catch {
      result = UNREADABLE;
    }
    if (typeof result === 'object' && result !== null) this.remember(result);
    return result as T;
  }

  /**
   * How many characters at the end of `text` must be held back from a stream: the part that may
   * still become a secret (a prefix of a configured value, a token that may go on), and any
   * complete secret that reaches into that part.
   */
  heldTail(text: string): { readonly hold: number; readonly body?: RegExp } {
    const token = partialToken(text, this.maxHold + 1);
    let hold = token.length;
    for (const secret of this.prefixChars.has(text.at(-1) ?? '') ? this.values : []) {
      const first = secret.charCodeAt(0);
      for (let length = Math.min(secret.length - 1, text.length); length > hold; length -= 1) {
        if (text.charCodeAt(text.length - length) === first && text.endsWith(secret.slice(0, length))) {
          hold = length;
          break;
        }
      }
    }
    // A "token" that keeps growing is released once it is longer than any key: holding it for
    // ever would rescan it on every delta (quadratic on a hostile stream).
    if (hold > this.maxHold) hold = 0;
    if (hold === 0) return { hold };
    let cut = text.length - hold;
    // A complete match that straddles the cut goes back whole.
    this.pattern.lastIndex = 0;
    for (const match of text.matchAll(this.pattern)) {
      const end = match.index + match[0].length;
      if (match.index < cut && end > cut) cut = match.index;
    }
    // The body class is kept only when the whole hold is that token: the stream may then append to it unscanned.
    return text.length - cut === token.length && token.body !== undefined ? { hold: token.length, body: token.body } : { hold: text.length - cut };
  }

  /** `path`: the objects from the root down to `value`'s parent (short: a cycle check by scan beats a hash set). */
  private walk(value: unknown, depth: number, path: object[]): unknown {
    if (typeof value === 'string') return value.length < this.shortest ? value : this.text(value);
    if (typeof value !== 'object' || value === null) return value;
    if (this.isRecent(value)) return value;
    if (this.replaced) {
      const known = this.seen.get(value);
      if (known !== undefined) return known;
    }
    if (path.includes(value)) return CIRCULAR;
    if (depth >= this.maxDepth) return TOO_DEEP;
    let result: unknown;
    path.push(value);
    try {
      result = this.walkObject(value, depth, path);
    } catch {
      result = UNREADABLE;
    }
    path.pop();
    // A root is remembered as clean for a while; only a replaced one needs its copy kept for good.
    if (depth === 0) {
      if (result !== value) {
        this.seen.set(value, result);
        this.replaced = true;
      }
      if (typeof result === 'object' && result !== null) this.remember(result);
    }
    return result;
  }

  private remember(root: object): void {
    this.recent[this.recentAt] = root;
    this.recentAt = (this.recentAt + 1) % RECENT_ROOTS;
  }

  private isRecent(value: object): boolean {
    const recent = this.recent;
    for (let index = 0; index < RECENT_ROOTS; index += 1) if (recent[index] === value) return true;
    return false;
  }

  private key(key: string): { readonly clean: string; readonly secret: boolean } {
    const known = this.keys.get(key);
    if (known !== undefined) return known;
    const fresh = { clean: this.text(key), secret: SECRET_KEY.test(key) };
    if (this.keys.size < MAX_REMEMBERED_KEYS) this.keys.set(key, fresh);
    return fresh;
  }

  private walkObject(value: object, depth: number, path: object[]): unknown {
    // Plain objects and arrays, by far the most common, skip the checks for bytes and opaque values.
    const prototype: unknown = Object.getPrototypeOf(value);
    if (prototype === Array.prototype) return this.walkArray(value as unknown[], depth, path);
    if (prototype !== Object.prototype && prototype !== null) {
      // Bytes are not searched for secrets, so none leave: a marker stands for them, as in a tool result.
      if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer) return `[${Object.prototype.toString.call(value).slice(8, -1)} of ${value.byteLength} bytes]`;
      if (isOpaque(value)) return value;
      if (Array.isArray(value)) return this.walkArray(value as unknown[], depth, path);
    }
    const toJSON = (value as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === 'function') {
      // What a store would write is what `toJSON` returns (an actor reference, a custom class).
      const json: unknown = toJSON.call(value);
      return json === value ? value : this.walk(json, depth + 1, path);
    }
    let copy: Record<string, unknown> | undefined;
    if (prototype === Object.prototype || prototype === null) {
      // `for…in` over a plain object is its own enumerable keys, without allocating a list of them.
      for (const key in value) copy = this.walkEntry(value as Record<string, unknown>, key, depth, path, copy);
    } else {
      for (const key of Object.keys(value)) copy = this.walkEntry(value as Record<string, unknown>, key, depth, path, copy);
    }
    return copy ?? value;
  }

  /** One field of an object: its clean key and value; the copy, made at the first change. */
  private walkEntry(value: Record<string, unknown>, key: string, depth: number, path: object[], copy: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
    const item = value[key];
    const known = this.key(key);
    const next = known.secret && item !== undefined && item !== null && item !== '' ? REDACTED : this.walk(item, depth + 1, path);
    if (next === item && known.clean === key) return copy;
    const changed = copy ?? { ...value };
    if (known.clean !== key) delete changed[key];
    changed[known.clean] = next;
    return changed;
  }

  private walkArray(value: readonly unknown[], depth: number, path: object[]): unknown {
    let copy: unknown[] | undefined;
    for (let index = 0; index < value.length; index += 1) {
      const item: unknown = value[index];
      const next = this.walk(item, depth + 1, path);
      if (next !== item) {
        copy ??= value.slice();
        copy[index] = next;
      }
    }
    return copy ?? value;
  }
}

/** Clean roots remembered (see `recent`). */
const RECENT_ROOTS = 16;

/** Keys remembered at most: a hostile result with ever new keys must not grow the redactor. */
const MAX_REMEMBERED_KEYS = 4_096;

/** Values a store writes as they are, or cannot hold text: not walked. */
function isOpaque(value: object): boolean {
  return (
    value instanceof Date ||
    value instanceof RegExp ||
    value instanceof Map ||
    value instanceof Set ||
    value instanceof Promise ||
    value instanceof WeakMap ||
    value instanceof WeakSet
  );
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
