/**
 * The calls of a running tool batch that started and that the task's machine has not been told
 * about yet (ADR/0393). The machine needs them only when something cuts the batch (a deadline, a
 * cancel, the session deadline): a tool that started counts as a tool call even though the batch
 * never reported. So instead of one `TOOL_STARTED` event per started tool — a whole XState step
 * each, about a twentieth of a turn — the kernel reports them in one event right before a cut can
 * reach the machines: before it sends ABORT, and before a delayed (`after`) event fires. When the
 * batch ends, its results count its calls and the ledger forgets them.
 *
 * One per run; the running task's tool runner attaches to it.
 */
export class ToolStartLedger {
  private readonly tasks = new Map<string, { pending: number; readonly report: (count: number) => void }>();

  /** A task's tool runner: where `reportPending` sends the task's count (as its TOOL_STARTED). */
  attach(taskId: string, report: (count: number) => void): void {
    this.tasks.set(taskId, { pending: 0, report });
  }

  detach(taskId: string, report: (count: number) => void): void {
    if (this.tasks.get(taskId)?.report === report) this.tasks.delete(taskId);
  }

  started(taskId: string): void {
    const task = this.tasks.get(taskId);
    if (task !== undefined) task.pending += 1;
  }

  /** The task's batch reported its results, which count every call that started. */
  settled(taskId: string): void {
    const task = this.tasks.get(taskId);
    if (task !== undefined) task.pending = 0;
  }

  /** Before anything that can cut a batch reaches the machines. Synchronous. */
  reportPending(): void {
    for (const task of this.tasks.values()) {
      const count = task.pending;
      if (count === 0) continue;
      task.pending = 0;
      task.report(count);
    }
  }
}
