import { describe, expect, it } from 'vitest';
import { openaiModel } from '../../src/providers/openai-model.js';
import { chunk, stream, textAnswer, toolCallAnswer } from '../support/openai-compatible-server.js';
import { expectFailure, expectResponse, gate, isolateOpenAIEnvironment, makeRequest, useServer } from './helpers.js';

isolateOpenAIEnvironment();
const server = useServer();

function model(overrides: Partial<Parameters<typeof openaiModel>[0]> = {}) {
  return openaiModel({ model: 'test-model', baseURL: server().baseURL, apiKey: 'sk-local', maxRetries: 0, ...overrides });
}

describe('openaiModel streaming text', () => {
  it('streams each content delta to onTextDelta and returns the whole text', async () => {
    server().enqueue(textAnswer(['Hel', 'lo', ', world']));
    const request = makeRequest();

    const response = expectResponse(await model().call(request));

    expect(request.deltas).toEqual(['Hel', 'lo', ', world']);
    expect(response.text).toBe('Hello, world');
    expect(response.finishReason).toBe('stop');
    expect(response.toolCalls).toEqual([]);
    expect(response.warnings).toBeUndefined();
  });

  it('delivers a delta while the server still holds the rest of the stream', async () => {
    const firstDeltaSeen = gate();
    server().enqueue(stream([chunk.role(), chunk.text('first'), { until: firstDeltaSeen.promise }, chunk.text(' second'), chunk.finish('stop'), chunk.usage(1, 2), chunk.done()]));
    const request = makeRequest({ onTextDelta: (delta) => delta === 'first' && firstDeltaSeen.open() });

    // The server writes ' second' only after the client has reported 'first': buffering would deadlock.
    const response = expectResponse(await model().call(request));

    expect(request.deltas).toEqual(['first', ' second']);
    expect(response.text).toBe('first second');
  });

  it('sends a Chat Completions streaming request with usage, tools and sampling options', async () => {
    server().enqueue(textAnswer(['ok']));
    const request = makeRequest({
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Weather in Paris?' },
        { role: 'assistant', content: '', toolCalls: [{ id: 'call_1', name: 'weather', args: { city: 'Paris' } }] },
        { role: 'tool', toolCallId: 'call_1', name: 'weather', content: '{"celsius":21}', isError: false },
      ],
      tools: [
        {
          name: 'weather',
          description: 'Current weather',
          parameters: { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        },
      ],
    });

    await model({ temperature: 0.2, maxOutputTokens: 256 }).call(request);

    const [sent] = server().requests;
    expect(sent?.path).toBe('/v1/chat/completions');
    expect(sent?.body).toEqual({
      model: 'test-model',
      stream: true,
      stream_options: { include_usage: true },
      temperature: 0.2,
      max_completion_tokens: 256,
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Weather in Paris?' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } }] },
        { role: 'tool', tool_call_id: 'call_1', content: '{"celsius":21}' },
      ],
      tools: [
        {
          type: 'function',
          function: { name: 'weather', description: 'Current weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
        },
      ],
    });
  });

  it('omits tools entirely for the tool-less wrap-up call', async () => {
    server().enqueue(textAnswer(['done']));

    await model().call(makeRequest({ tools: [] }));

    expect(server().requests[0]?.body).not.toHaveProperty('tools');
  });

  it('can send the output limit as max_tokens for servers that only know that field', async () => {
    server().enqueue(textAnswer(['ok']));

    await model({ maxOutputTokens: 64, maxOutputTokensParameter: 'max_tokens' }).call(makeRequest());

    expect(server().requests[0]?.body).toMatchObject({ max_tokens: 64 });
    expect(server().requests[0]?.body).not.toHaveProperty('max_completion_tokens');
  });
});

describe('openaiModel tool calls', () => {
  it('assembles arguments split across chunks', async () => {
    server().enqueue(toolCallAnswer([{ id: 'call_a', name: 'search', fragments: ['{"que', 'ry": "xst', 'ate v5"', ', "limit": 3}'] }]));

    const response = expectResponse(await model().call(makeRequest()));

    expect(response.finishReason).toBe('tool_calls');
    expect(response.toolCalls).toEqual([{ id: 'call_a', name: 'search', args: { query: 'xstate v5', limit: 3 } }]);
  });

  it('keeps interleaved calls apart by index', async () => {
    server().enqueue(
      stream([
        chunk.role(),
        chunk.toolCall({ index: 0, id: 'call_0', name: 'read', arguments: '' }),
        chunk.toolCall({ index: 1, id: 'call_1', name: 'write', arguments: '{"pa' }),
        chunk.toolCall({ index: 0, arguments: '{"path":' }),
        chunk.toolCall({ index: 1, arguments: 'th":"b.txt",' }),
        chunk.toolCall({ index: 2, id: 'call_2', name: 'list', arguments: '{}' }),
        chunk.toolCall({ index: 0, arguments: '"a.txt"}' }),
        chunk.toolCall({ index: 1, arguments: '"text":"hi"}' }),
        chunk.finish('tool_calls'),
        chunk.usage(30, 12),
        chunk.done(),
      ]),
    );

    const response = expectResponse(await model().call(makeRequest()));

    expect(response.toolCalls).toEqual([
      { id: 'call_0', name: 'read', args: { path: 'a.txt' } },
      { id: 'call_1', name: 'write', args: { path: 'b.txt', text: 'hi' } },
      { id: 'call_2', name: 'list', args: {} },
    ]);
  });

  it('turns malformed argument JSON into argumentsError instead of failing the call', async () => {
    server().enqueue(
      toolCallAnswer([
        { id: 'call_bad', name: 'search', fragments: ['{"query": "unterminated'] },
        { id: 'call_good', name: 'search', fragments: ['{"query": "fine"}'] },
      ]),
    );

    const response = expectResponse(await model().call(makeRequest()));

    const [bad, good] = response.toolCalls;
    expect(bad).toMatchObject({ id: 'call_bad', name: 'search', args: undefined });
    expect(bad?.argumentsError).toMatch(/not valid JSON.*received: \{"query": "unterminated/);
    expect(good).toEqual({ id: 'call_good', name: 'search', args: { query: 'fine' } });
  });

  it('treats an empty arguments string as {}', async () => {
    server().enqueue(toolCallAnswer([{ id: 'call_now', name: 'now', fragments: [] }]));

    const response = expectResponse(await model().call(makeRequest()));

    expect(response.toolCalls).toEqual([{ id: 'call_now', name: 'now', args: {} }]);
  });

  it('gives a deterministic id to a call the server sent without one', async () => {
    server().enqueue(stream([chunk.toolCall({ index: 0, name: 'now', arguments: '{}' }), chunk.finish('tool_calls'), chunk.usage(1, 1), chunk.done()]));

    const response = expectResponse(await model().call(makeRequest({ callIndex: 7 })));

    expect(response.toolCalls).toEqual([{ id: 'call_7_0', name: 'now', args: {} }]);
  });
});

describe('openaiModel finish reasons, usage and cost', () => {
  it('reads usage from the final chunk and prices it with the pricing option', async () => {
    server().enqueue(textAnswer(['hi'], { usage: [1_000, 500] }));

    const response = expectResponse(await model({ pricing: { inputPerMillion: 2, outputPerMillion: 8 } }).call(makeRequest()));

    expect(response.usage).toEqual({ inputTokens: 1_000, outputTokens: 500 });
    expect(response.costUsd).toBeCloseTo((1_000 * 2 + 500 * 8) / 1_000_000, 12);
  });

  it('prices known OpenAI models from the built-in table and unknown ones at 0', async () => {
    server().enqueue(textAnswer(['a'], { usage: [1_000_000, 1_000_000] }), textAnswer(['b'], { usage: [1_000_000, 1_000_000] }));

    const known = expectResponse(await model({ model: 'gpt-4o-mini' }).call(makeRequest()));
    const unknown = expectResponse(await model({ model: 'llama3.1:8b' }).call(makeRequest()));

    expect(known.costUsd).toBeCloseTo(0.15 + 0.6, 10);
    expect(unknown.costUsd).toBe(0);
  });

  it('returns length as a response with a truncation warning', async () => {
    server().enqueue(textAnswer(['Once upon a'], { finishReason: 'length' }));

    const response = expectResponse(await model().call(makeRequest()));

    expect(response.finishReason).toBe('length');
    expect(response.text).toBe('Once upon a');
    expect(response.warnings).toEqual([expect.stringMatching(/output token limit.*truncated/)]);
  });

  it('returns content_filter as a normal response for the kernel to judge', async () => {
    server().enqueue(textAnswer(['I can'], { finishReason: 'content_filter' }));

    const response = expectResponse(await model().call(makeRequest()));

    expect(response.finishReason).toBe('content_filter');
  });

  it('accepts a stream that ends without [DONE] once a finish_reason arrived', async () => {
    server().enqueue(textAnswer(['complete'], { done: false }));

    const response = expectResponse(await model().call(makeRequest()));

    expect(response.text).toBe('complete');
    expect(response.usage).toEqual({ inputTokens: 10, outputTokens: 1 });
  });

  it('fails a stream that ends without [DONE] and without a finish_reason', async () => {
    server().enqueue(stream([chunk.role(), chunk.text('half an ans')]));
    const request = makeRequest();

    const failure = expectFailure(await model().call(request));

    expect(failure.code).toBe('stream_interrupted');
    expect(request.deltas).toEqual(['half an ans']);
  });

  it('warns and counts an estimate (4 characters per token) when the server sends no usage chunk', async () => {
    server().enqueue(stream([chunk.text('hi'), chunk.finish('stop'), chunk.done()]));

    const response = expectResponse(await model({ model: 'gpt-4o' }).call(makeRequest()));

    // [{"role":"user","content":"Say hello."}] is 40 characters; "hi" is 2.
    expect(response.usage).toEqual({ inputTokens: 10, outputTokens: 1 });
    expect(response.costUsd).toBeGreaterThan(0);
    expect(response.warnings).toEqual([expect.stringMatching(/no usage.*estimate against budgets: 10 input and 1 output tokens/)]);
  });

  it('streams a refusal as text and flags it', async () => {
    server().enqueue(stream([chunk.refusal("I can't help with that."), chunk.finish('stop'), chunk.usage(5, 6), chunk.done()]));

    const response = expectResponse(await model().call(makeRequest()));

    expect(response.text).toBe("I can't help with that.");
    expect(response.warnings).toEqual(["the model refused: I can't help with that."]);
  });
});

describe('openaiModel statelessness', () => {
  it('serves concurrent calls from one instance without mixing them', async () => {
    const echo = (request: { body: { messages: { content: string }[] } }) => textAnswer([`echo:`, request.body.messages[0]?.content ?? '']);
    server().enqueue(echo, echo, echo);
    const shared = model();

    const results = await Promise.all(['one', 'two', 'three'].map((content) => shared.call(makeRequest({ messages: [{ role: 'user', content }] }))));

    expect(results.map((result) => expectResponse(result).text)).toEqual(['echo:one', 'echo:two', 'echo:three']);
  });

  it('names itself openai with the configured model id', () => {
    const instance = model({ model: 'gpt-4.1-mini' });

    expect(instance.provider).toBe('openai');
    expect(instance.modelId).toBe('gpt-4.1-mini');
  });
});
