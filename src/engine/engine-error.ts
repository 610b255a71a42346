export type EngineErrorCode =
  /** A second `stream()` while one is running, or `loadState()` during a stream. */
  | 'engine_busy'
  /** `loadState()` was given a state written by another engine. */
  | 'engine_state_mismatch'
  /** `loadState()` was given something that is not a state this engine can read. */
  | 'engine_state_invalid';

/**
 * A misuse of an engine adapter, thrown (never a run failure: those end the stream with a `done`
 * whose `stopReason` says why). `engineId` names the adapter that refused.
 */
export class EngineError extends Error {
  readonly code: EngineErrorCode;
  readonly engineId: string;

  constructor(options: { code: EngineErrorCode; engineId: string; message: string; cause?: unknown }) {
    super(options.message, { cause: options.cause });
    this.name = 'EngineError';
    this.code = options.code;
    this.engineId = options.engineId;
  }
}
