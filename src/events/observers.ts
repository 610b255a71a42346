/**
 * The events port: what a run's events are handed to besides its stream and its store. The
 * kernel receives them in its options and composes them; the events layer defines them.
 */

/** The pino-compatible logger the kernel writes events to; it derives a child per run. */
export interface KernelLogger {
  child(bindings: Record<string, unknown>, options?: Record<string, unknown>): KernelLogger;
  debug(object: object, message?: string): void;
  info(object: object, message?: string): void;
  warn(object: object, message?: string): void;
  error(object: object, message?: string): void;
}

/** An XState inspection observer (e.g. from `@statelyai/inspect`), passed to `createActor`. */
export type InspectObserver = ((inspectionEvent: unknown) => void) | { next?: (inspectionEvent: unknown) => void };
