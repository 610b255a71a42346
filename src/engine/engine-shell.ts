import type { Message } from '../contracts/messages.js';
import { EngineError } from '../errors.js';
import { startingTranscript } from './engine-input.js';
import { engineState, parseEngineState } from './engine-state.js';
import type { EngineAdapter, EngineEvent, EngineOutput } from './types.js';

export type RunEvent = Exclude<EngineEvent, { type: 'done' }>;

/** One run of an engine, as the shell drives it. */
export interface EngineRun {
  /** The run's events, `done` excepted; the iteration ends when the run has ended. */
  readonly events: AsyncIterable<RunEvent>;
  /** How the run ended, the conversation it leaves and how many model calls it made. Never rejects. */
  readonly finished: Promise<{ readonly output: EngineOutput; readonly messages: readonly Message[]; readonly modelCalls: number }>;
  /** Stops the run early (the consumer stopped reading); `finished` still resolves. */
  cancel(): void;
}

/**
 * Starts one run. `firstCallIndex` is the model-call count of the conversation so far: the run's
 * model calls continue from it (`ModelRequest.callIndex`), so that a deterministic model replays
 * the same way across streams and across `saveState()`/`loadState()`.
 */
export type StartRun = (transcript: readonly Message[], signal: AbortSignal | undefined, firstCallIndex: number) => EngineRun;

/**
 * What both adapters share around their loop: input validation, one stream at a time, the final
 * `done`, and the conversation that `saveState()`/`loadState()` carry.
 *
 * The stream holds the adapter from its first `next()` until it yields `done` (released just
 * before, so a consumer that stops reading at `done` does not keep it) or until the consumer
 * leaves early, which cancels the run. A run cut short leaves the conversation as it was.
 */
export function createEngineShell(engineId: string, system: string | undefined, start: StartRun): Required<EngineAdapter> {
  let conversation: readonly Message[] = [];
  let modelCalls = 0;
  let holder: object | undefined;
  const refuseWhileBusy = (what: string) => {
    if (holder !== undefined) {
      throw new EngineError({ code: 'engine_busy', engineId, message: `engine "${engineId}" is already running a stream; ${what}` });
    }
  };

  return {
    engineId,
    async *stream(input) {
      const transcript = startingTranscript(input, conversation, system);
      refuseWhileBusy('one adapter runs one stream at a time (wait for its done, or use another adapter)');
      const token = {};
      holder = token;
      const release = () => {
        if (holder === token) holder = undefined;
      };
      let run: EngineRun;
      try {
        run = start(transcript, input?.signal, modelCalls);
      } catch (error) {
        release();
        throw error;
      }
      let settled = false;
      try {
        for await (const event of run.events) yield event;
        const finished = await run.finished;
        conversation = finished.messages;
        modelCalls += finished.modelCalls;
        settled = true;
        release();
        yield { type: 'done', output: finished.output };
      } finally {
        if (!settled) {
          run.cancel();
          // The conversation stays as it was; the calls made still count, so numbering never repeats.
          modelCalls += (await run.finished).modelCalls;
        }
        release();
      }
    },
    saveState: () => engineState(engineId, conversation, modelCalls),
    loadState(state) {
      refuseWhileBusy('loadState() must wait until it has ended');
      const loaded = parseEngineState(state, engineId);
      conversation = loaded.messages;
      modelCalls = loaded.modelCalls;
    },
  };
}
