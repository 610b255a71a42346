/**
 * The one workload every system runs (ADR 0061): a scripted model that answers with one `add` tool
 * call for 9 turns and a text answer on the 10th; the tool is synchronous.
 *
 * The model decides from the transcript it is given (how many tool results it holds), as a real
 * model would, so no system gets a private counter the others lack. Latency is a `Pacer`:
 * `immediatePacer` answers at once (sequential figure); `delayedPacer` waits `delayMs` per call
 * and, when given a barrier, holds every run inside its 5th call until all of them are there
 * (live-heap figure).
 */

export const TURNS = 10;
export const TOOL_TURNS = TURNS - 1;
export const FINAL_TEXT = 'the sum is 45';
/** The 5th model call (index 4) is where the heap is measured. */
export const PAUSE_AT_CALL = 4;

/**
 * What the model answers for its `index`-th call of a run (0-based): a tool call on each of the
 * first `turns − 1` calls, the text answer on call `turns` (the setup figure runs 1-turn runs).
 */
export function scriptStep(index, turns = TURNS) {
  if (index < turns - 1) return { kind: 'tool', id: `call_${index}`, args: { a: index, b: 1 } };
  return { kind: 'text', text: FINAL_TEXT };
}

/**
 * The scripted model for the systems without a model port of their own (plain loop, minimal
 * XState machines): messages `{ role, content, toolCalls? }`, tool results with role `tool`.
 */
export async function plainModel(messages, pacer, turns = TURNS) {
  let index = 0;
  for (const message of messages) if (message.role === 'tool') index += 1;
  if (pacer.wait !== undefined) await pacer.wait(index);
  const step = scriptStep(index, turns);
  return step.kind === 'tool'
    ? { role: 'assistant', content: '', toolCalls: [{ id: step.id, name: 'add', args: step.args }] }
    : { role: 'assistant', content: step.text, toolCalls: [] };
}

/** The tool every system registers, as a plain function. */
export function add({ a, b }) {
  return a + b;
}

export const ADD_DESCRIPTION = 'Adds two numbers.';

/** No latency: the answer is ready at once (a resolved promise, so every system still awaits). */
export const immediatePacer = { wait: undefined };

/**
 * A model that takes `delayMs` per call. With a `barrier`, the call at PAUSE_AT_CALL also waits
 * for every run to arrive there before answering.
 */
export function delayedPacer(delayMs, barrier) {
  const sleep = () => new Promise((resolve) => setTimeout(resolve, delayMs));
  return {
    wait(index) {
      if (barrier === undefined || index !== PAUSE_AT_CALL) return sleep();
      return Promise.all([sleep(), barrier.arrive()]);
    },
  };
}

/**
 * Holds arrivals until `size` have arrived, then calls `onFull` (which measures the heap) and
 * releases everyone when it resolves.
 */
export function createBarrier(size, onFull) {
  let arrived = 0;
  let release;
  const released = new Promise((resolve) => {
    release = resolve;
  });
  return {
    arrive() {
      arrived += 1;
      if (arrived === size) void Promise.resolve(onFull()).then(release);
      return released;
    },
    get arrived() {
      return arrived;
    },
  };
}

/** Checks a finished run: every system must have done the same work. */
export function expectFinal(text, system) {
  if (text !== FINAL_TEXT) throw new Error(`${system}: run ended with ${JSON.stringify(text)}, expected ${JSON.stringify(FINAL_TEXT)}`);
}
