/**
 * Time as the kernel sees it. `now()` stamps events and measures runtime; `setTimeout` and
 * `clearTimeout` drive the deadlines (XState's delayed transitions use them too).
 * Tests inject a controllable clock; xstate's `SimulatedClock` fits this shape.
 */
export interface Clock {
  now(): number;
  setTimeout(callback: () => void, delayMs: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (callback, delayMs) => setTimeout(callback, delayMs),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};
