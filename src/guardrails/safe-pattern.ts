/**
 * `denyPatterns` of a declarative guardrail (docs/guardrails.md), compiled safely. A regular
 * expression written as data may backtrack for ever on a long input (`(a+)+$`), and JavaScript
 * cannot interrupt a regex on its own thread. So, twice: at validate time a pattern with a
 * quantified group that itself holds a quantifier, or a backreference, is refused (the shapes of
 * catastrophic backtracking); at run time each test runs in a `node:vm` script with a timeout, which
 * V8 does interrupt mid-regex — a pattern that still takes too long trips the guardrail (it fails
 * closed) instead of hanging the task.
 */
import { Script, createContext, type Context } from 'node:vm';

/** How long one pattern may take on one value. */
export const PATTERN_TIMEOUT_MS = 100;
export const MAX_PATTERN_CHARS = 1_000;

/** A pattern as written: a regex source, or `/source/flags` (flags among `imsu`). */
export function parsePattern(written: string): { readonly source: string; readonly flags: string } {
  const slashed = /^\/(.+)\/([imsu]*)$/s.exec(written);
  return slashed === null ? { source: written, flags: '' } : { source: slashed[1]!, flags: slashed[2]! };
}

/** Why a pattern is refused, or undefined when it compiles and has none of the dangerous shapes. */
export function patternProblem(written: string): string | undefined {
  if (written.length > MAX_PATTERN_CHARS) return `is longer than ${MAX_PATTERN_CHARS} characters`;
  const { source, flags } = parsePattern(written);
  try {
    new RegExp(source, flags);
  } catch (error) {
    return `is not a valid regular expression (${error instanceof Error ? error.message : String(error)})`;
  }
  return dangerousShape(source);
}

/**
 * A quantified group holding a quantifier (`(a+)+`, `(\w*)*`, `(x{2,})+`), or a backreference: the
 * shapes whose backtracking grows exponentially with the input. Escapes and character classes are
 * skipped; a lookahead or group counts as a group.
 */
function dangerousShape(source: string): string | undefined {
  const groups: boolean[] = [];
  let inClass = false;
  for (let index = 0; index < source.length; index += 1) {
    const char = source[index]!;
    if (char === '\\') {
      const next = source[index + 1] ?? '';
      if (!inClass && (/[1-9]/.test(next) || next === 'k')) return 'uses a backreference, which can take exponential time: write it without one';
      index += 1;
      continue;
    }
    if (inClass) {
      if (char === ']') inClass = false;
      continue;
    }
    if (char === '[') inClass = true;
    else if (char === '(') groups.push(false);
    else if (char === ')') {
      const quantifiedInside = groups.pop() ?? false;
      const quantified = isQuantifier(source, index + 1);
      if (quantifiedInside && quantified) return 'repeats a group that repeats itself (such as (a+)+), which can take exponential time: write it without the nesting';
      if (quantifiedInside || quantified) markEnclosing(groups);
    } else if (isQuantifier(source, index)) markEnclosing(groups);
  }
  return undefined;
}

/** `+`, `*` or `{n,}` / `{n,m}` with more than one repetition, at `index`. */
function isQuantifier(source: string, index: number): boolean {
  const char = source[index];
  if (char === '+' || char === '*') return true;
  if (char !== '{') return false;
  const braces = /^\{(\d+)(,(\d*))?\}/.exec(source.slice(index));
  if (braces === null || braces[2] === undefined) return false;
  return braces[3] === '' || Number(braces[3]) > 1;
}

function markEnclosing(groups: boolean[]): void {
  if (groups.length > 0) groups[groups.length - 1] = true;
}

/** A compiled pattern, tested under the timeout. */
export interface SafePattern {
  readonly written: string;
  /** True on a match; `timeout` when the test took longer than `PATTERN_TIMEOUT_MS`. */
  test(text: string): boolean | 'timeout';
}

const TEST = new Script('pattern.test(text)');

export function compilePattern(written: string): SafePattern {
  const { source, flags } = parsePattern(written);
  const context: Context = createContext({ pattern: new RegExp(source, flags), text: '' });
  return {
    written,
    test(text) {
      context.text = text;
      try {
        return TEST.runInContext(context, { timeout: PATTERN_TIMEOUT_MS }) === true;
      } catch {
        return 'timeout';
      }
    },
  };
}
