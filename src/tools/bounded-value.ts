/*
 * Tool output is foreign data of any size and shape: a 50 MB string, a 10 MB Uint8Array, a cycle,
 * a BigInt, a Proxy whose traps throw. Before anything else touches it (redaction, the transcript,
 * events, stores), it is copied into plain JSON within a character budget and a depth, in time
 * proportional to the budget, never to the value (ADR 0113). Pure: no I/O.
 */
import { describeThrown } from '../contracts/describe-error.js';

export interface ValueBounds {
  /** Most characters of JSON kept; past it the value becomes a cut string with a marker. */
  readonly maxChars: number;
  /** Deepest nesting kept; deeper values are replaced by a marker. */
  readonly maxDepth: number;
}

export interface BoundedValue {
  /** A plain JSON value (string, number, boolean, null, array, object) within the bounds. */
  readonly value: unknown;
  readonly truncated: boolean;
}

const CIRCULAR = '[circular reference]';

/** The marker appended to a result cut at the limit; the model sees it. */
export function truncationMarker(size: string, maxChars: number): string {
  return `… [truncated: the result is ${size} characters, the limit is ${maxChars} (option limits.toolResultChars)]`;
}

/** `value` as bounded plain JSON. Never throws, whatever `value` does when read. */
export function boundValue(value: unknown, bounds: ValueBounds): BoundedValue {
  if (typeof value === 'string') {
    if (value.length <= bounds.maxChars) return { value, truncated: false };
    return { value: value.slice(0, bounds.maxChars) + truncationMarker(String(value.length), bounds.maxChars), truncated: true };
  }
  const walker = new Walker(bounds);
  const copy = walker.copy(value, 0);
  if (!walker.exhausted) return { value: copy === undefined ? null : copy, truncated: false };
  const text = JSON.stringify(copy) ?? 'null';
  return { value: text.slice(0, bounds.maxChars) + truncationMarker(`more than ${bounds.maxChars}`, bounds.maxChars), truncated: true };
}

/** The message of a thrown value, read defensively (getters and Proxy traps may throw), at most `maxChars`. */
export function readErrorMessage(error: unknown, maxChars: number): string {
  let message: string;
  try {
    if (typeof error === 'string') message = error;
    else if (error instanceof Error) message = String(error.message || error.name);
    else message = JSON.stringify(boundValue(error, { maxChars, maxDepth: 8 }).value) ?? String(error);
  } catch {
    message = 'the tool failed with an error that could not be read (its properties threw)';
  }
  return message.length <= maxChars ? message : message.slice(0, maxChars) + truncationMarker(String(message.length), maxChars);
}

class Walker {
  /** Characters still allowed (an estimate of the JSON length, never below it by more than a constant per value). */
  private budget: number;
  exhausted = false;
  private readonly ancestors = new Set<object>();

  constructor(private readonly bounds: ValueBounds) {
    this.budget = bounds.maxChars;
  }

  private spend(chars: number): boolean {
    this.budget -= chars;
    if (this.budget < 0) this.exhausted = true;
    return !this.exhausted;
  }

  /** A JSON-safe copy; `undefined` means "leave out" (as JSON.stringify does for functions and symbols). */
  copy(value: unknown, depth: number): unknown {
    if (this.exhausted) return undefined;
    switch (typeof value) {
      case 'string':
        if (value.length + 2 > this.budget) {
          const kept = value.slice(0, Math.max(0, this.budget - 2));
          this.spend(value.length + 2);
          return kept;
        }
        this.spend(value.length + 2);
        return value;
      case 'number':
        this.spend(12);
        return Number.isFinite(value) ? value : null;
      case 'boolean':
        this.spend(5);
        return value;
      case 'bigint':
        // JSON has no BigInt; its decimal digits as a string keep the value exactly.
        return this.copy(value.toString(), depth);
      case 'undefined':
      case 'function':
      case 'symbol':
        return undefined;
    }
    if (value === null) {
      this.spend(4);
      return null;
    }
    return this.copyObject(value as object, depth);
  }

  private copyObject(value: object, depth: number): unknown {
    if (this.ancestors.has(value)) return this.copy(CIRCULAR, depth);
    if (depth >= this.bounds.maxDepth) return this.copy(`[nested deeper than ${this.bounds.maxDepth} levels]`, depth);
    try {
      if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer) {
        const name = Object.prototype.toString.call(value).slice(8, -1);
        return this.copy(`[${name} of ${value.byteLength} bytes]`, depth);
      }
      const toJSON = (value as { toJSON?: unknown }).toJSON;
      if (typeof toJSON === 'function') {
        const replaced: unknown = toJSON.call(value);
        return replaced === value || (typeof replaced === 'object' && replaced !== null) ? this.copyPlain(replaced as object, depth) : this.copy(replaced, depth);
      }
      if (value instanceof Error) return this.copy(`${value.name}: ${value.message}`, depth);
      return this.copyPlain(value, depth);
    } catch (error) {
      return this.copy(`[unreadable value: ${describeThrown(error)}]`, depth);
    }
  }

  private copyPlain(value: object, depth: number): unknown {
    this.ancestors.add(value);
    try {
      if (Array.isArray(value)) {
        this.spend(2);
        const items: unknown[] = [];
        for (let index = 0; index < value.length && !this.exhausted; index++) {
          this.spend(1);
          const item = this.read(value, index, depth);
          items.push(item === undefined ? null : item);
        }
        return items;
      }
      this.spend(2);
      const copy: Record<string, unknown> = {};
      for (const key of Object.keys(value)) {
        if (this.exhausted) break;
        const item = this.read(value, key, depth);
        if (item === undefined) continue;
        this.spend(key.length + 4);
        copy[key] = item;
      }
      return copy;
    } finally {
      this.ancestors.delete(value);
    }
  }

  /** One property, read under try/catch: a getter or a Proxy trap may throw. */
  private read(container: object, key: string | number, depth: number): unknown {
    let item: unknown;
    try {
      item = (container as Record<string | number, unknown>)[key];
    } catch (error) {
      return this.copy(`[unreadable: ${describeThrown(error)}]`, depth + 1);
    }
    return this.copy(item, depth + 1);
  }
}

/** How deep `value` nests, counted without recursion and stopping at `limit + 1`. */
export function nestingDepth(value: unknown, limit: number): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  let visited = 0;
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (typeof item !== 'object' || item === null) continue;
    if (depth + 1 > deepest) deepest = depth + 1;
    if (deepest > limit) return deepest;
    // Arguments are parsed JSON (no cycles), but a custom Model may hand over anything: stop at a bound.
    if (++visited > 1_000_000) return deepest;
    try {
      for (const child of Object.values(item)) stack.push([child, depth + 1]);
    } catch {
      return limit + 1; // unreadable (a throwing getter or Proxy trap): treat as too deep to use
    }
  }
  return deepest;
}
