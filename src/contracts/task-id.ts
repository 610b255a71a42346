/** The id of a task given without one: `task-1`, `task-2`, … by its 0-based position. */
export function defaultTaskId(index: number): string {
  return `task-${index + 1}`;
}

/**
 * Whether `taskId` is a fan-out item of the task `ownerId`: items are `<ownerId>[<position>]`
 * (docs/workflows.md) and carry their task's index in events and results.
 */
export function isItemOf(taskId: string, ownerId: string): boolean {
  return taskId.length > ownerId.length + 2 && taskId.startsWith(`${ownerId}[`) && taskId.endsWith(']');
}
