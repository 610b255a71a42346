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
  private pending = 0;
  private report: ((count: number) => void) | undefined;

  /** The task's tool runner: where `reportPending` sends the count (as its TOOL_STARTED). */
  attach(report: (count: number) => void): void {
    this.report = report;
    this.pending = 0;
  }

  detach(report: (count: number) => void): void {
    if (this.report !== report) return;
    this.report = undefined;
    this.pending = 0;
  }

  started(): void {
    this.pending += 1;
  }

  /** The batch reported its results, which count every call that started. */
  settled(): void {
    this.pending = 0;
  }

  /** Before anything that can cut a batch reaches the machines. Synchronous. */
  reportPending(): void {
    const count = this.pending;
    if (count === 0 || this.report === undefined) return;
    this.pending = 0;
    this.report(count);
  }
}
