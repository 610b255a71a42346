import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createKernel, defineTool, openaiModel, runWorkflow, type KernelEvent } from 'dualloop';
import { chunk, stream, textAnswer, toolCallAnswer, status } from '../support/openai-compatible-server.js';
import { isolateOpenAIEnvironment, SECRET, SECRET_PIECES, useServer } from './helpers.js';

/*
 * The whole path: kernel → openaiModel → real `openai` SDK → HTTP → the local Chat Completions peer.
 */

isolateOpenAIEnvironment();
const server = useServer();

function model(overrides: Partial<Parameters<typeof openaiModel>[0]> = {}) {
  return openaiModel({ model: 'test-model', baseURL: server().baseURL, apiKey: 'sk-local', maxRetries: 0, ...overrides });
}

const add = defineTool({
  name: 'add',
  description: 'Adds two numbers',
  parameters: z.object({ a: z.number(), b: z.number() }),
  execute: ({ a, b }) => ({ sum: a + b }),
});

async function collect(run: AsyncIterable<KernelEvent>, onEvent: (event: KernelEvent) => void = () => {}): Promise<KernelEvent[]> {
  const events: KernelEvent[] = [];
  for await (const event of run) {
    events.push(event);
    onEvent(event);
  }
  return events;
}

function ofType<T extends KernelEvent['type']>(events: readonly KernelEvent[], type: T): Extract<KernelEvent, { type: T }>[] {
  return events.filter((event): event is Extract<KernelEvent, { type: T }> => event.type === type);
}

describe('openaiModel inside the kernel', () => {
  it('turns each streamed delta into a message_update event', async () => {
    server().enqueue(textAnswer(['Hel', 'lo', '!']));
    const run = createKernel({ model: model(), tools: [add] }).start(['Say hello']);

    const events = await collect(run);
    const result = await run.result;

    expect(ofType(events, 'message_update').map((event) => event.delta)).toEqual(['Hel', 'lo', '!']);
    expect(ofType(events, 'message_end')[0]).toMatchObject({ text: 'Hello!', finishReason: 'stop' });
    expect(result.tasks[0]?.stop.reason).toBe('planner_stopped');
    expect(result.tasks[0]?.output).toBe('Hello!');
  });

  it('runs a tool call round-trip over the wire', async () => {
    server().enqueue(
      toolCallAnswer([{ id: 'call_add', name: 'add', fragments: ['{"a": 2', ', "b": 3}'] }]),
      textAnswer(['The sum is 5.']),
    );

    const result = await runWorkflow({ model: model(), tools: [add], tasks: ['What is 2 + 3?'] });

    expect(result.tasks[0]?.stop.reason).toBe('planner_stopped');
    expect(result.tasks[0]?.turns[0]?.toolCalls).toEqual([{ id: 'call_add', name: 'add', args: { a: 2, b: 3 }, result: { sum: 5 }, isError: false }]);
    const [first, second] = server().requests;
    expect(first?.body.tools).toEqual([expect.objectContaining({ type: 'function', function: expect.objectContaining({ name: 'add' }) })]);
    const replayed = second?.body.messages as { role: string; tool_call_id?: string; content: string | null; tool_calls?: unknown[] }[];
    expect(replayed.find((message) => message.role === 'assistant')?.tool_calls).toEqual([
      { id: 'call_add', type: 'function', function: { name: 'add', arguments: '{"a":2,"b":3}' } },
    ]);
    const toolMessage = replayed.find((message) => message.role === 'tool');
    expect(toolMessage?.tool_call_id).toBe('call_add');
    expect(toolMessage?.content).toContain('5');
  });

  it('feeds malformed tool arguments back to the model as an error result', async () => {
    server().enqueue(toolCallAnswer([{ id: 'call_bad', name: 'add', fragments: ['{"a": 2, "b":'] }]), textAnswer(['Sorry.']));

    const result = await runWorkflow({ model: model(), tools: [add], tasks: ['Add'] });

    expect(result.tasks[0]?.turns[0]?.toolCalls[0]).toMatchObject({ id: 'call_bad', isError: true });
    const toolMessage = (server().requests[1]?.body.messages as { role: string; content: string }[]).find((message) => message.role === 'tool');
    expect(toolMessage?.content).toMatch(/JSON/);
  });

  it('ends the task error when the provider filters the answer', async () => {
    server().enqueue(textAnswer(['Here is how to'], { finishReason: 'content_filter' }));

    const result = await runWorkflow({ model: model(), tasks: ['Something filtered'] });

    expect(result.stop.reason).toBe('error');
    expect(result.tasks[0]?.stop.reason).toBe('error');
    expect(result.tasks[0]?.stop.detail).toContain('content_filter');
  });

  it('emits a warning event when the answer is cut by length', async () => {
    server().enqueue(textAnswer(['Once upon a'], { finishReason: 'length' }));
    const run = createKernel({ model: model() }).start(['Tell a story']);

    const events = await collect(run);

    expect(ofType(events, 'warning').map((event) => event.message)).toEqual([expect.stringMatching(/output token limit/)]);
    expect((await run.result).tasks[0]?.output).toBe('Once upon a');
  });

  it('stops on the cost budget using the priced usage of the stream', async () => {
    // 1 000 input tokens at $10 per million = $0.01 for the first call; the budget is $0.005.
    server().enqueue(toolCallAnswer([{ id: 'call_1', name: 'add', fragments: ['{"a":1,"b":1}'] }], { usage: [1_000, 0] }), textAnswer(['never asked']));

    const result = await runWorkflow({
      model: model({ pricing: { inputPerMillion: 10, outputPerMillion: 10 } }),
      tools: [add],
      tasks: ['Add forever'],
      bounds: { inner: { maxCostUsd: 0.005 } },
    });

    expect(result.stop.reason).toBe('budget_exhausted');
    expect(result.metrics.costUsd).toBeCloseTo(0.01, 10);
    expect(server().requests).toHaveLength(1);
  });

  it('cancels the HTTP request when the run is aborted mid-stream', async () => {
    server().enqueue(stream([chunk.role(), chunk.text('thinking'), { hang: true }]));
    const run = createKernel({ model: model() }).start(['Think hard']);

    await collect(run, (event) => {
      if (event.type === 'message_update') run.abort('user pressed stop');
    });
    const result = await run.result;

    expect(result.stop.reason).toBe('context_canceled');
    await server().requests[0]?.clientClosed;
    expect(server().requests[0]?.closedByClient()).toBe(true);
  });

  it('reports an auth failure as task error without the key', async () => {
    server().enqueue(status(401, 'Incorrect API key provided: sk-test-*********3456.'));

    const result = await runWorkflow({ model: model({ apiKey: SECRET }), tasks: ['Hi'] });

    expect(result.stop.reason).toBe('error');
    expect(result.tasks[0]?.stop.detail).toContain('auth_failed');
    for (const piece of SECRET_PIECES) expect(JSON.stringify(result)).not.toContain(piece);
  });
});
