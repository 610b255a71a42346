/**
 * Placeholders in task descriptions (docs/workflows.md): `{{<taskId>.output}}`,
 * `{{<taskId>.output.<path>}}`, and in a fan-out item `{{item}}` / `{{item.<path>}}`. They are
 * filled when the task starts: strings as they are, other values as JSON. Any other `{{…}}` is
 * left as written. Pure.
 */

/** One placeholder: the text it replaces, what it names and the path into that value. */
export type Placeholder =
  | { readonly text: string; readonly kind: 'output'; readonly taskId: string; readonly path: readonly string[] }
  | { readonly text: string; readonly kind: 'item'; readonly path: readonly string[] };

const PLACEHOLDER = /\{\{\s*([^{}]+?)\s*\}\}/g;
const OUTPUT_REFERENCE = /^(.+?)\.output(?:\.(.+))?$/;

/** A reference `<taskId>.output[.<path>]` (also the form of `forEach`), or `undefined`. */
export function parseOutputReference(reference: string): { readonly taskId: string; readonly path: readonly string[] } | undefined {
  const match = OUTPUT_REFERENCE.exec(reference.trim());
  if (match === null) return undefined;
  return { taskId: match[1]!, path: match[2] === undefined ? [] : match[2].split('.') };
}

export function placeholdersOf(description: string): Placeholder[] {
  const found: Placeholder[] = [];
  for (const match of description.matchAll(PLACEHOLDER)) {
    const inner = match[1]!;
    if (inner === 'item' || inner.startsWith('item.')) {
      found.push({ text: match[0], kind: 'item', path: inner === 'item' ? [] : inner.slice(5).split('.') });
      continue;
    }
    const reference = parseOutputReference(inner);
    if (reference !== undefined) found.push({ text: match[0], kind: 'output', ...reference });
  }
  return found;
}

/** The value at `path` (object keys, array positions), or `undefined` when it is not there. */
export function valueAt(value: unknown, path: readonly string[]): unknown {
  let current = value;
  for (const segment of path) {
    if (Array.isArray(current) && /^\d+$/.test(segment)) current = current[Number(segment)];
    else if (typeof current === 'object' && current !== null && Object.hasOwn(current, segment)) current = (current as Record<string, unknown>)[segment];
    else return undefined;
  }
  return current;
}

/** How a value reads in a description: a string as it is, anything else as JSON, nothing as empty. */
export function placeholderText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined) return '';
  return JSON.stringify(value) ?? '';
}

/** The values a description's placeholders are filled with. */
export interface PlaceholderValues {
  /** A task's output, by id (only tasks that ended). */
  output(taskId: string): unknown;
  /** The item of a fan-out task; `undefined` elsewhere. */
  readonly item?: { readonly value: unknown };
}

/** The description with its placeholders filled; `missing` lists those whose value was not there. */
export function fillPlaceholders(description: string, values: PlaceholderValues): { readonly text: string; readonly missing: readonly string[] } {
  const missing: string[] = [];
  const text = description.replace(PLACEHOLDER, (whole, inner: string) => {
    const [placeholder] = placeholdersOf(whole);
    if (placeholder === undefined) return whole;
    const base = placeholder.kind === 'item' ? values.item?.value : values.output(placeholder.taskId);
    if (placeholder.kind === 'item' && values.item === undefined) return whole;
    const value = valueAt(base, placeholder.path);
    if (value === undefined) missing.push(`{{${inner}}}`);
    return placeholderText(value);
  });
  return { text, missing };
}
