/** A snapshot's state value as a path: `{ TASK_SELECT: 'PICK' }` → `TASK_SELECT.PICK`. */
export function statePath(value: unknown): string {
  if (typeof value === 'string') return value;
  const [key, child] = Object.entries(value as Record<string, unknown>)[0]!;
  return `${key}.${statePath(child)}`;
}
