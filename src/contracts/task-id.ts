/** The id of a task given without one: `task-1`, `task-2`, … by its 0-based position. */
export function defaultTaskId(index: number): string {
  return `task-${index + 1}`;
}

/** The fan-out task a fan-out item's id (`review[2]`) belongs to; `undefined` for any other id. */
export function fanOutTaskOf(taskId: string): string | undefined {
  return /^(.+)\[\d+\]$/.exec(taskId)?.[1];
}

/** Whether `taskId` names one of `tasks`, or an item of one of its fan-out (`forEach`) tasks. */
export function isTaskOf(tasks: readonly { readonly id: string; readonly forEach?: string }[], taskId: string): boolean {
  const owner = fanOutTaskOf(taskId);
  return tasks.some((task) => task.id === taskId || (owner !== undefined && task.id === owner && task.forEach !== undefined));
}

/**
 * Whether `taskId` is a fan-out item of the task `ownerId`: items are `<ownerId>[<position>]`
 * (docs/workflows.md) and carry their task's index in events and results.
 */
export function isItemOf(taskId: string, ownerId: string): boolean {
  return fanOutTaskOf(taskId) === ownerId;
}
