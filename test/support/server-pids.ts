import { existsSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/*
 * Watching test MCP servers as processes: test/support/mcp-dying-server.mjs appends its pid to the
 * file given with `--pid-file` when it starts.
 */

/** The pids written to `file`, in start order; none when the file does not exist. */
export function serverPids(file: string): number[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8').split('\n').filter((line) => line !== '').map(Number);
}

/** Whether a process with this pid exists (signal 0 checks without sending anything). */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Waits until `condition` holds: for an event of another process, not a timing assertion. */
export async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await sleep(20);
}

/** Stops what a failed test left running. */
export function killLeftovers(file: string): void {
  for (const pid of serverPids(file)) if (isRunning(pid)) process.kill(pid, 'SIGKILL');
}
