/**
 * The EngineAdapter contract suite (DESIGN.md section 6). Every adapter must pass it:
 *   describeEngineContract('my engine', (setup) => myEngine(setup));
 * `setup` carries the model, tools and turn bound a scenario needs; the factory maps them onto the
 * adapter's own options.
 */
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import {
  ConfigError,
  defineTool,
  ENGINE_EVENT_TYPES,
  EngineError,
  ErrorCode,
  StopReason,
  terminate,
  type EngineAdapter,
  type EngineEvent,
  type EngineInput,
  type EngineOutput,
  type Model,
  type Tool,
} from 'dualloop';
import { scriptedModel } from 'dualloop/testing';

export interface EngineSetup {
  readonly model: Model;
  readonly tools: readonly Tool[];
  readonly maxTurns?: number;
  readonly system?: string;
}

export type MakeAdapter = (setup: EngineSetup) => EngineAdapter;

/** Reads a stream to its end. */
export async function drain(stream: AsyncIterable<EngineEvent>): Promise<EngineEvent[]> {
  const events: EngineEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

/** Every way a finished stream can break the contract, as readable strings (empty when valid). */
export function contractViolations(events: readonly EngineEvent[]): string[] {
  const problems: string[] = [];
  const dones = events.filter((event) => event.type === 'done');
  if (dones.length !== 1) problems.push(`expected exactly one done, got ${dones.length}`);
  if (events.at(-1)?.type !== 'done') problems.push(`the last event is ${events.at(-1)?.type ?? 'missing'}, not done`);
  for (const event of events) {
    if (!ENGINE_EVENT_TYPES.includes(event.type)) problems.push(`unknown event kind ${String(event.type)}`);
    if (event.type === 'text_delta' && (typeof event.delta !== 'string' || event.delta === '')) problems.push('empty text delta');
    if ('turnIndex' in event && !(Number.isInteger(event.turnIndex) && event.turnIndex >= 0)) problems.push(`bad turnIndex ${String(event.turnIndex)}`);
  }
  const started = new Map<string, number>();
  const ended = new Map<string, number>();
  events.forEach((event, position) => {
    if (event.type === 'tool_call_start') {
      if (started.has(event.toolCallId)) problems.push(`tool call ${event.toolCallId} started twice`);
      started.set(event.toolCallId, position);
    }
    if (event.type === 'tool_call_end') {
      if (ended.has(event.toolCallId)) problems.push(`tool call ${event.toolCallId} ended twice`);
      if (!started.has(event.toolCallId)) problems.push(`tool call ${event.toolCallId} ended without a start before it`);
      ended.set(event.toolCallId, position);
    }
  });
  for (const id of started.keys()) if (!ended.has(id)) problems.push(`tool call ${id} started and never ended`);
  const turnEnds = events.filter((event) => event.type === 'turn_end').map((event) => event.turnIndex);
  if (turnEnds.some((turnIndex, position) => turnIndex !== position)) problems.push(`turn_end indexes are not 0, 1, 2…: ${turnEnds.join(', ')}`);
  const done = dones[0];
  if (done?.type === 'done') problems.push(...outputViolations(done.output));
  return problems;
}

function outputViolations(output: EngineOutput): string[] {
  const problems: string[] = [];
  if (!StopReason.safeParse(output.stopReason).success) problems.push(`invalid stop reason ${String(output.stopReason)}`);
  if (typeof output.text !== 'string') problems.push('output.text is not a string');
  if (typeof output.stopDetail !== 'string' || output.stopDetail === '') problems.push('output.stopDetail is empty');
  if (output.stopReason === 'error' && !ErrorCode.safeParse(output.stopCode).success) problems.push(`an error end carries no ErrorCode (stopCode ${String(output.stopCode)})`);
  if (output.stopReason !== 'error' && output.stopCode !== undefined) problems.push(`a ${output.stopReason} end carries stopCode ${output.stopCode}`);
  const numbers = { ...output.usage, ...output.metrics } as Record<string, unknown>;
  for (const [name, value] of Object.entries(numbers)) {
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) problems.push(`metric ${name} is not a finite non-negative number: ${String(value)}`);
  }
  for (const name of ['inputTokens', 'outputTokens', 'turns', 'toolCalls', 'costUsd', 'durationMs']) {
    if (!(name in numbers)) problems.push(`metric ${name} is missing`);
  }
  return problems;
}

/** Runs one stream and checks it against the contract; returns its events and output. */
export async function runValid(adapter: EngineAdapter, input: EngineInput): Promise<{ events: EngineEvent[]; output: EngineOutput }> {
  const events = await drain(adapter.stream(input));
  expect(contractViolations(events)).toEqual([]);
  const done = events.at(-1) as Extract<EngineEvent, { type: 'done' }>;
  return { events, output: done.output };
}

const echo = defineTool({ name: 'echo', description: 'echoes', parameters: z.object({ text: z.string() }), execute: ({ text }) => `echo: ${text}` });
const broken = defineTool({
  name: 'broken',
  description: 'always throws',
  parameters: z.object({}),
  execute: () => {
    throw new Error('tool exploded');
  },
});
const finish = defineTool({ name: 'finish', description: 'ends the task', parameters: z.object({}), execute: () => terminate('finished') });
/** Waits until its call is cancelled (and tells the test it started). */
const waitForever = (started: () => void) =>
  defineTool({
    name: 'wait',
    description: 'waits for its signal',
    parameters: z.object({}),
    execute: (_args, { signal }) =>
      new Promise((resolve) => {
        started();
        signal.addEventListener('abort', () => resolve('cancelled'));
      }),
  });
const TOOLS = [echo, broken, finish];

const toolStarts = (events: readonly EngineEvent[]) => events.flatMap((event) => (event.type === 'tool_call_start' ? [event.name] : []));

export function describeEngineContract(name: string, makeAdapter: MakeAdapter): void {
  const make = (script: Parameters<typeof scriptedModel>[0], extra: Partial<EngineSetup> = {}) => {
    const model = scriptedModel(script);
    return { model, adapter: makeAdapter({ model, tools: TOOLS, ...extra }) };
  };

  describe(`EngineAdapter contract: ${name}`, () => {
    it('has an engine id', () => {
      expect(make([]).adapter.engineId).toMatch(/^[a-z][a-z0-9-]*$/);
    });

    it('a text answer: non-empty deltas in order, one turn, `planner_stopped`, the text in done', async () => {
      const { adapter } = make([{ text: 'hello world', chunks: ['hello', '', ' world'], usage: { inputTokens: 5, outputTokens: 2 } }]);
      const { events, output } = await runValid(adapter, { prompt: 'greet' });
      expect(events.filter((event) => event.type === 'text_delta').map((event) => event.delta)).toEqual(['hello', ' world']);
      expect(events.filter((event) => event.type === 'turn_end')).toHaveLength(1);
      expect(output).toMatchObject({ text: 'hello world', stopReason: 'planner_stopped', usage: { inputTokens: 5, outputTokens: 2 } });
      expect(output.metrics).toMatchObject({ turns: 1, toolCalls: 0 });
    });

    it('tool calls: each start pairs with one end by call id, in the 0-based turn that asked for them', async () => {
      const { adapter, model } = make([
        { toolCalls: [{ name: 'echo', args: { text: 'a' }, id: 't1' }, { name: 'echo', args: { text: 'b' }, id: 't2' }] },
        { toolCalls: [{ name: 'echo', args: { text: 'c' }, id: 't3' }] },
        { text: 'done' },
      ]);
      const { events, output } = await runValid(adapter, { prompt: 'echo' });
      const ends = events.filter((event) => event.type === 'tool_call_end');
      expect(ends.map((event) => [event.toolCallId, event.turnIndex, event.result])).toEqual([
        ['t1', 0, 'echo: a'],
        ['t2', 0, 'echo: b'],
        ['t3', 1, 'echo: c'],
      ]);
      expect(output).toMatchObject({ stopReason: 'planner_stopped', metrics: { turns: 3, toolCalls: 3 } });
      expect(model.calls[2]!.messages.filter((message) => message.role === 'tool')).toHaveLength(3);
    });

    it('tool failures (unknown tool, invalid arguments, a throw) are error results the model sees, not run failures', async () => {
      const { adapter, model } = make([
        { toolCalls: [{ name: 'nope' }, { name: 'echo', args: { text: 1 } }, { name: 'broken' }] },
        { text: 'recovered' },
      ]);
      const { events, output } = await runValid(adapter, { prompt: 'try' });
      expect(events.filter((event) => event.type === 'tool_call_end').map((event) => event.isError)).toEqual([true, true, true]);
      expect(output.stopReason).toBe('planner_stopped');
      expect(model.calls[1]!.messages.filter((message) => message.role === 'tool').map((message) => message.content)).toEqual([
        expect.stringContaining('unknown tool "nope"'),
        expect.stringContaining('invalid arguments for "echo"'),
        'Error: tool exploded',
      ]);
    });

    it('a failing model call ends the stream with done `error`, never a throw', async () => {
      const { adapter } = make([{ error: 'provider down' }]);
      const { output } = await runValid(adapter, { prompt: 'hi' });
      expect(output.stopReason).toBe('error');
      expect(output.stopCode).toBe('model_failed');
      expect(output.stopDetail).toContain('provider down');
    });

    it('the turn bound ends `max_turns`; an answer on the last turn has completed', async () => {
      const looping = make(({ index }) => ({ toolCalls: [{ name: 'echo', args: { text: `${index}` } }] }), { maxTurns: 2 });
      expect((await runValid(looping.adapter, { prompt: 'loop' })).output).toMatchObject({ stopReason: 'max_turns', metrics: { turns: 2 } });
      const answering = make([{ toolCalls: [{ name: 'echo', args: { text: 'x' } }] }, { text: 'answer' }], { maxTurns: 2 });
      expect((await runValid(answering.adapter, { prompt: 'go' })).output.stopReason).toBe('planner_stopped');
    });

    it('every result of a turn asking to terminate ends `tool_terminated`; some of them do not', async () => {
      const all = make([{ toolCalls: [{ name: 'finish' }] }, { text: 'never' }]);
      expect((await runValid(all.adapter, { prompt: 'go' })).output.stopReason).toBe('tool_terminated');
      expect(all.model.calls).toHaveLength(1);
      const some = make([{ toolCalls: [{ name: 'finish' }, { name: 'echo', args: { text: 'x' } }] }, { text: 'went on' }]);
      expect((await runValid(some.adapter, { prompt: 'go' })).output).toMatchObject({ stopReason: 'planner_stopped', text: 'went on' });
    });

    it('an aborted signal ends `context_canceled`: before the start, and while a tool runs (its start still pairs with an end)', async () => {
      const before = make([{ text: 'never' }]);
      const controller = new AbortController();
      controller.abort();
      expect((await runValid(before.adapter, { prompt: 'hi', signal: controller.signal })).output.stopReason).toBe('context_canceled');

      const during = new AbortController();
      const model = scriptedModel([{ toolCalls: [{ name: 'wait' }, { name: 'echo', args: { text: 'later' } }] }, { text: 'never' }]);
      const adapter = makeAdapter({ model, tools: [waitForever(() => during.abort()), echo] });
      const { events, output } = await runValid(adapter, { prompt: 'wait', signal: during.signal });
      expect(output.stopReason).toBe('context_canceled');
      // The call after the cancelled one never starts, and the cut turn is not reported as ended.
      expect(toolStarts(events)).toEqual(['wait']);
      expect(events.filter((event) => event.type === 'turn_end')).toEqual([]);
      expect(model.calls).toHaveLength(1);
    });

    it('refuses a second concurrent stream with EngineError `engine_busy` from its first next(); the first one is unaffected', async () => {
      const { adapter } = make([{ text: 'slow answer', delayMs: 30 }, { text: 'second' }]);
      const first = adapter.stream({ prompt: 'one' });
      const firstEvent = first.next();
      const second = adapter.stream({ prompt: 'two' });
      const refusal = await second.next().then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refusal).toBeInstanceOf(EngineError);
      expect(refusal).toMatchObject({ code: 'engine_busy', engineId: adapter.engineId });
      expect(String((refusal as Error).message)).toContain(adapter.engineId);
      const rest = [(await firstEvent).value as EngineEvent, ...(await drain({ [Symbol.asyncIterator]: () => first }))];
      expect(contractViolations(rest)).toEqual([]);
      expect(rest.at(-1)).toMatchObject({ type: 'done', output: { text: 'slow answer' } });
      // Free again after done.
      expect((await runValid(adapter, { prompt: 'three' })).output.text).toBe('second');
    });

    it('is free again as soon as done is yielded, even if the consumer stops reading there', async () => {
      const { adapter } = make([{ text: 'a' }, { text: 'b' }]);
      const stream = adapter.stream({ prompt: 'one' });
      let next = await stream.next();
      while (!next.done && next.value.type !== 'done') next = await stream.next();
      expect((await runValid(adapter, { prompt: 'two' })).output.text).toBe('b');
    });

    it('leaving a stream early cancels its run and frees the adapter', async () => {
      let started = 0;
      const model = scriptedModel([{ toolCalls: [{ name: 'wait' }] }, { text: 'after' }]);
      const adapter = makeAdapter({ model, tools: [waitForever(() => (started += 1))] });
      for await (const event of adapter.stream({ prompt: 'wait' })) {
        if (event.type === 'tool_call_start') break;
      }
      expect(started).toBe(1);
      const { output } = await runValid(adapter, { prompt: 'again' });
      expect(output.text).toBe('after');
    });

    it('invalid input throws ConfigError from the first next() and leaves the adapter free', async () => {
      const { adapter } = make([{ text: 'ok' }]);
      await expect(adapter.stream({}).next()).rejects.toBeInstanceOf(ConfigError);
      await expect(adapter.stream({ prompt: '  ' }).next()).rejects.toThrow(/prompt/);
      await expect(adapter.stream({ messages: [{ role: 'robot' }] as never }).next()).rejects.toThrow(/messages\.0/);
      expect((await runValid(adapter, { prompt: 'fine' })).output.text).toBe('ok');
    });

    it('continues its conversation: a second stream sees the first exchange and the next call index; `messages` starts over', async () => {
      const { adapter, model } = make([{ text: 'first answer' }, { text: 'second answer' }, { text: 'fresh' }], { system: 'be brief' });
      await runValid(adapter, { prompt: 'q1' });
      expect((await runValid(adapter, { prompt: 'q2' })).output.text).toBe('second answer');
      expect(model.calls.map((call) => call.index)).toEqual([0, 1]);
      expect(model.calls[1]!.messages.map((message) => [message.role, message.content])).toEqual([
        ['system', 'be brief'],
        ['user', 'q1'],
        ['assistant', 'first answer'],
        ['user', 'q2'],
      ]);
      await runValid(adapter, { messages: [{ role: 'user', content: 'other topic' }] });
      expect(model.calls[2]!.messages.map((message) => message.content)).toEqual(['be brief', 'other topic']);
    });

    it('saveState()/loadState(): a new adapter continues from a saved state; foreign or malformed states are refused by name', async () => {
      const first = make([{ toolCalls: [{ name: 'echo', args: { text: 'x' } }] }, { text: 'one' }]);
      await runValid(first.adapter, { prompt: 'q1' });
      const state = JSON.parse(JSON.stringify(first.adapter.saveState!()));
      expect(state).toMatchObject({ engineId: first.adapter.engineId, version: 1, modelCalls: 2 });

      // The script is indexed by call: the loaded adapter's first call is call 2 of the conversation.
      const second = make([{ text: 'unused' }, { text: 'unused' }, { text: 'two' }]);
      second.adapter.loadState!(state);
      expect((await runValid(second.adapter, { prompt: 'q2' })).output.text).toBe('two');
      expect(second.model.calls[0]!.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'user']);

      const foreign = { ...state, engineId: 'another-engine' };
      expect(() => second.adapter.loadState!(foreign)).toThrow(EngineError);
      expect(() => second.adapter.loadState!(foreign)).toThrow(new RegExp(`${adapter(second)}.*another-engine`));
      expect(() => second.adapter.loadState!({ ...state, messages: 'nope' })).toThrow(/messages/);
      expect(() => second.adapter.loadState!({ engineId: second.adapter.engineId, version: 99 })).toThrow(/version 99/);
      expect(() => second.adapter.loadState!('not a state')).toThrow(EngineError);
    });
  });
}

const adapter = (made: { adapter: EngineAdapter }) => made.adapter.engineId;
