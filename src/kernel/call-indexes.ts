/**
 * Model call indexes (`ModelRequest.callIndex`, which deterministic models such as the scripted one
 * replay by) for a run whose tasks may call at once. A task asks for the index it counts (its own
 * calls since the workflow's last known index); it gets that one unless another task took it or a
 * later one, in which case it gets the next free index. A list's one task always gets exactly what
 * it asks, so its indexes are what they always were.
 */
export class CallIndexes {
  private next: number;

  constructor(start: number) {
    this.next = start;
  }

  take(asked: number): number {
    const index = Math.max(asked, this.next);
    this.next = index + 1;
    return index;
  }
}
