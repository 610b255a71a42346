/** The id of a task given without one: `task-1`, `task-2`, … by its 0-based position. */
export function defaultTaskId(index: number): string {
  return `task-${index + 1}`;
}
