import type { z } from 'zod';

/**
 * "Did you mean" for an unknown manifest field, as the command line does for unknown flags: the
 * known field closest to the typo, when it is close enough to be a typo (an edit distance of at
 * most a third of the longer name, and at least 1).
 */
export function closestName(typed: string, known: readonly string[]): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const name of known) {
    const distance = editDistance(typed.toLowerCase(), name.toLowerCase());
    const limit = Math.max(1, Math.floor(Math.max(typed.length, name.length) / 3));
    if (distance <= limit && (best === undefined || distance < best.distance)) best = { name, distance };
  }
  return best?.name;
}

/** Optimal string alignment distance: insertions, deletions, substitutions and adjacent swaps. */
function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, row) => Array.from({ length: b.length + 1 }, (_, column) => (row === 0 ? column : column === 0 ? row : 0)));
  for (let row = 1; row <= a.length; row += 1) {
    for (let column = 1; column <= b.length; column += 1) {
      const cost = a[row - 1] === b[column - 1] ? 0 : 1;
      let value = Math.min(rows[row - 1]![column]! + 1, rows[row]![column - 1]! + 1, rows[row - 1]![column - 1]! + cost);
      if (row > 1 && column > 1 && a[row - 1] === b[column - 2] && a[row - 2] === b[column - 1]) value = Math.min(value, rows[row - 2]![column - 2]! + 1);
      rows[row]![column] = value;
    }
  }
  return rows[a.length]![b.length]!;
}

interface SchemaDefinition {
  readonly type: string;
  readonly shape?: Record<string, z.ZodType>;
  readonly innerType?: z.ZodType;
  readonly element?: z.ZodType;
  readonly options?: readonly z.ZodType[];
  readonly in?: z.ZodType;
  readonly valueType?: z.ZodType;
  readonly getter?: () => z.ZodType;
}

/** The field names the object schemas at `path` accept (every branch of a union at that point). */
export function knownKeysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  const keys = new Set<string>();
  for (const object of objectsAt(schema, path, 0)) for (const key of Object.keys(object.shape ?? {})) keys.add(key);
  return [...keys];
}

function objectsAt(schema: z.ZodType, path: readonly PropertyKey[], depth: number): SchemaDefinition[] {
  if (depth > 32) return [];
  const definition = (schema as unknown as { _zod: { def: SchemaDefinition } })._zod.def;
  const [head, ...rest] = path;
  switch (definition.type) {
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'readonly':
    case 'catch':
    case 'nonoptional':
      return definition.innerType === undefined ? [] : objectsAt(definition.innerType, path, depth + 1);
    case 'pipe':
      return definition.in === undefined ? [] : objectsAt(definition.in, path, depth + 1);
    case 'lazy':
      return definition.getter === undefined ? [] : objectsAt(definition.getter(), path, depth + 1);
    case 'union':
      return (definition.options ?? []).flatMap((option) => objectsAt(option, path, depth + 1));
    case 'object': {
      if (head === undefined) return [definition];
      const field = definition.shape?.[String(head)];
      return field === undefined ? [] : objectsAt(field, rest, depth + 1);
    }
    case 'array':
      return head === undefined || definition.element === undefined ? [] : objectsAt(definition.element, rest, depth + 1);
    case 'record':
      return head === undefined || definition.valueType === undefined ? [] : objectsAt(definition.valueType, rest, depth + 1);
    default:
      return [];
  }
}
