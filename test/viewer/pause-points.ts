/**
 * Places where a test run waits until the test lets it go on: a model call, a tool, an
 * evaluator. `next()` resolves when the run reaches the next one; `release()` lets it continue.
 */
export interface PausePoints {
  /** Called by the run: waits here until released. */
  enter(label: string): Promise<void>;
  /** Resolves with the label of the next point the run reaches (or reached already). */
  next(): Promise<string>;
  /** Lets the paused run go on. */
  release(): void;
}

export function pausePoints(): PausePoints {
  const reached: { label: string; release: () => void }[] = [];
  let waiting: (() => void) | undefined;
  let current: { label: string; release: () => void } | undefined;
  return {
    enter(label) {
      return new Promise<void>((release) => {
        reached.push({ label, release });
        waiting?.();
        waiting = undefined;
      });
    },
    async next() {
      while (reached.length === 0) await new Promise<void>((resolve) => (waiting = resolve));
      current = reached.shift()!;
      return current.label;
    },
    release() {
      current?.release();
      current = undefined;
    },
  };
}
