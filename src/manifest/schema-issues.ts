import type { z } from 'zod';
import { closestName, knownKeysAt } from './did-you-mean.js';
import { withLine, type SourceIssue, type YamlSource } from './yaml-source.js';

type Issue = z.core.$ZodIssue;

/**
 * zod issues as readable problems with YAML lines: one per unknown field (with the known field it
 * is closest to, when `schema` is given), the most specific branch of a union instead of
 * "Invalid input", plain wording for missing and mistyped values.
 */
export function schemaIssues(error: z.ZodError, source: YamlSource, schema?: z.ZodType): SourceIssue[] {
  return flatten(error.issues, [], source.data).map(({ path, message }) => withLine(source, path, message === UNKNOWN_FIELD && schema !== undefined ? unknownField(schema, path) : message));
}

const UNKNOWN_FIELD = 'unknown field';

function unknownField(schema: z.ZodType, path: readonly PropertyKey[]): string {
  const typed = path[path.length - 1];
  if (typeof typed !== 'string') return UNKNOWN_FIELD;
  const suggestion = closestName(typed, knownKeysAt(schema, path.slice(0, -1)));
  return suggestion === undefined ? UNKNOWN_FIELD : `${UNKNOWN_FIELD} (did you mean "${suggestion}"?)`;
}

interface Flat {
  readonly path: readonly PropertyKey[];
  readonly message: string;
}

/** `data`: the document the issues are about, to say what a value is rather than what zod's message guessed. */
function flatten(issues: readonly Issue[], prefix: readonly PropertyKey[], data: unknown): Flat[] {
  return issues.flatMap((issue): Flat[] => {
    const path = [...prefix, ...issue.path];
    if (issue.code === 'unrecognized_keys') return issue.keys.map((key) => ({ path: [...path, key], message: UNKNOWN_FIELD }));
    if (issue.code === 'invalid_union' && issue.errors.length > 0) return unionIssues(issue.errors, path, data);
    return [{ path, message: reword(issue, valueAt(data, path)) }];
  });
}

/** The value at `path`; undefined when it (or a parent) is missing. */
function valueAt(data: unknown, path: readonly PropertyKey[]): unknown {
  let value = data;
  for (const segment of path) {
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, segment)) return undefined;
    value = (value as Record<PropertyKey, unknown>)[segment];
  }
  return value;
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

/** Every branch failed: report the branch that got furthest into the value (a type mismatch at the root got nowhere). */
function unionIssues(branches: readonly (readonly Issue[])[], path: readonly PropertyKey[], data: unknown): Flat[] {
  const progressed = branches.filter((branch) => !branch.every((issue) => issue.code === 'invalid_type' && issue.path.length === 0));
  if (progressed.length === 0) {
    if (valueAt(data, path) === undefined) return [{ path, message: 'required' }];
    const expected = [...new Set(branches.flat().map((issue) => (issue.code === 'invalid_type' ? issue.expected : 'value')))];
    return [{ path, message: `must be ${oneOf(expected.map(withArticle))}` }];
  }
  const depth = (branch: readonly Issue[]) => Math.max(...branch.map((issue) => issue.path.length));
  const best = progressed.reduce((chosen, branch) => (depth(branch) > depth(chosen) || (depth(branch) === depth(chosen) && branch.length < chosen.length) ? branch : chosen));
  return flatten(best, path, data);
}

function reword(issue: Issue, value: unknown): string {
  switch (issue.code) {
    case 'invalid_type':
      // Read from the value itself: a schema's own error message (the model block's) says nothing of it.
      return value === undefined ? 'required' : `must be ${withArticle(issue.expected)} (got ${typeName(value)})`;
    case 'too_small':
      if (issue.origin === 'number') return `must be ${issue.inclusive ? '>=' : '>'} ${String(issue.minimum)}`;
      return issue.message;
    case 'too_big':
      if (issue.origin === 'number') return `must be ${issue.inclusive ? '<=' : '<'} ${String(issue.maximum)}`;
      return issue.message;
    case 'invalid_key':
      // A record's key (an agent's name, an MCP server's): the key's own rule says what is wrong.
      return issue.issues.map((inner) => inner.message).join('; ');
    case 'invalid_value':
      return issue.message.startsWith('Invalid') ? `must be ${oneOf(issue.values.map((value) => JSON.stringify(value)))}` : issue.message;
    default:
      return issue.message;
  }
}

function oneOf(options: readonly string[]): string {
  return options.length <= 2 ? options.join(' or ') : `one of ${options.join(', ')}`;
}

function withArticle(noun: string): string {
  if (noun === 'int') return 'an integer';
  // A zod record is what YAML calls a mapping (MCP servers, a cassette by task).
  if (noun === 'record') return 'a mapping';
  return /^[aeiou]/.test(noun) ? `an ${noun}` : `a ${noun}`;
}
