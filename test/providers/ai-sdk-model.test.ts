import type { LanguageModelV3 } from '@ai-sdk/provider';
import { APICallError } from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { aiSdkModel, ConfigError, createKernel, defineTool, runWorkflow, type KernelEvent, type Message, type ModelRequest } from 'dualloop';
import { mockLanguageModel, textParts, toolCallParts, usage } from './ai-sdk-mock.js';

const add = defineTool({
  name: 'add',
  description: 'Adds two numbers',
  parameters: z.object({ a: z.number(), b: z.number() }),
  execute: ({ a, b }) => ({ sum: a + b }),
});

function request(messages: readonly Message[] = [{ role: 'user', content: 'hi' }], signal = new AbortController().signal): ModelRequest & { deltas: string[] } {
  const deltas: string[] = [];
  return { messages, tools: [], signal, callIndex: 0, onTextDelta: (delta) => deltas.push(delta), deltas };
}

function apiError(statusCode: number, isRetryable: boolean) {
  return new APICallError({ message: `status ${statusCode}`, url: 'http://127.0.0.1/v1', requestBodyValues: {}, statusCode, isRetryable });
}

describe('aiSdkModel over a provider model (LanguageModelV4)', () => {
  it('streams text deltas into message_update events and ends with the text', async () => {
    const provider = mockLanguageModel([{ parts: textParts(['Hel', 'lo', '!']) }]);
    const run = createKernel({ model: aiSdkModel(provider) }).start(['Say hello']);
    const events: KernelEvent[] = [];
    for await (const event of run) events.push(event);
    const result = await run.result;

    expect(events.filter((event) => event.type === 'message_update').map((event) => (event as { delta: string }).delta)).toEqual(['Hel', 'lo', '!']);
    expect(result.tasks[0]?.output).toBe('Hello!');
    expect(result.metrics).toMatchObject({ inputTokens: 10, outputTokens: 3 });
  });

  it('runs a tool call round-trip and sends the call and its result back in the prompt', async () => {
    const provider = mockLanguageModel([{ parts: toolCallParts([{ id: 'call_add', name: 'add', input: '{"a":2,"b":3}' }]) }, { parts: textParts(['The sum is 5.']) }]);

    const result = await runWorkflow({ model: aiSdkModel(provider), tools: [add], system: 'Be brief.', tasks: ['What is 2 + 3?'] });

    expect(result.tasks[0]?.turns[0]?.toolCalls).toEqual([{ id: 'call_add', name: 'add', args: { a: 2, b: 3 }, result: { sum: 5 }, isError: false }]);
    expect(result.tasks[0]?.output).toBe('The sum is 5.');
    expect(provider.calls[0]?.tools).toEqual([expect.objectContaining({ type: 'function', name: 'add', inputSchema: expect.objectContaining({ type: 'object' }) })]);
    expect(provider.calls[1]?.prompt).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: [{ type: 'text', text: 'What is 2 + 3?' }] },
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'call_add', toolName: 'add', input: { a: 2, b: 3 } }] },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'call_add', toolName: 'add', output: { type: 'text', value: '{"sum":5}' } }] },
    ]);
  });

  it('assembles a call from tool-input deltas when no tool-call part comes, and leaves provider-executed calls out', async () => {
    const provider = mockLanguageModel([
      {
        parts: [
          { type: 'tool-input-start', id: 'c1', toolName: 'add' },
          { type: 'tool-input-delta', id: 'c1', delta: '{"a":1,' },
          { type: 'tool-input-delta', id: 'c1', delta: '"b":2}' },
          { type: 'tool-input-end', id: 'c1' },
          { type: 'tool-call', toolCallId: 'web', toolName: 'web_search', input: '{}', providerExecuted: true },
          { type: 'finish', usage: usage(1, 1), finishReason: { unified: 'stop', raw: 'stop' } },
        ],
      },
    ]);
    const answer = await aiSdkModel(provider).call(request());
    expect(answer).toMatchObject({ type: 'response', finishReason: 'tool_calls', toolCalls: [{ id: 'c1', name: 'add', args: { a: 1, b: 2 } }] });
  });

  it('marks unparsable tool arguments so the tool gets an error result', async () => {
    const provider = mockLanguageModel([{ parts: toolCallParts([{ id: 'bad', name: 'add', input: '{"a":' }]) }]);
    const answer = await aiSdkModel(provider).call(request());
    expect(answer).toMatchObject({ type: 'response', toolCalls: [{ id: 'bad', args: undefined, argumentsError: expect.stringMatching(/JSON/) }] });
  });

  it('maps finish reasons: length warns, content-filter and error fail the call', async () => {
    const length = await aiSdkModel(mockLanguageModel([{ parts: textParts(['Once'], 'length') }])).call(request());
    expect(length).toMatchObject({ type: 'response', finishReason: 'length', warnings: [expect.stringMatching(/output token limit/)] });
    const filtered = await runWorkflow({ model: aiSdkModel(mockLanguageModel([{ parts: textParts(['no'], 'content-filter') }])), tasks: ['x'] });
    expect(filtered.tasks[0]?.stop).toMatchObject({ reason: 'error', detail: expect.stringContaining('content_filter') });
    const failed = await aiSdkModel(mockLanguageModel([{ parts: textParts([], 'error') }])).call(request());
    expect(failed).toMatchObject({ type: 'failure', code: 'model_error', usage: { inputTokens: 10, outputTokens: 0 } });
    const interrupted = await aiSdkModel(mockLanguageModel([{ parts: textParts(['par'], 'interrupted') }])).call(request());
    expect(interrupted).toMatchObject({ type: 'failure', code: 'stream_interrupted' });
  });

  it('fails a stream that ends without a finish part, or carries an error part', async () => {
    const noFinish = await aiSdkModel(mockLanguageModel([{ parts: textParts(['a']).slice(0, -1) }])).call(request());
    expect(noFinish).toMatchObject({ type: 'failure', code: 'stream_interrupted' });
    const errorPart = await aiSdkModel(mockLanguageModel([{ parts: [{ type: 'error', error: apiError(500, true) }] }])).call(request());
    expect(errorPart).toMatchObject({ type: 'failure', code: 'server_error', message: expect.stringContaining('status 500') });
  });

  it.each([
    ['negative', -1],
    ['fractional', 1.5],
    ['not finite', Number.POSITIVE_INFINITY],
    ['not a number', Number.NaN],
  ])('refuses a %s usage as a invalid_usage failure that ends the task error', async (_name, tokens) => {
    const parts = textParts(['x']);
    parts[parts.length - 1] = { type: 'finish', usage: usage(tokens, 1), finishReason: { unified: 'stop', raw: 'stop' } };
    const result = await runWorkflow({ model: aiSdkModel(mockLanguageModel([{ parts }])), tasks: ['x'] });
    expect(result.tasks[0]?.stop).toMatchObject({ reason: 'error', detail: expect.stringContaining('invalid_usage') });
    expect(result.metrics.inputTokens).toBe(0);
  });

  it('retries a retryable request error and gives up on one that is not retryable', async () => {
    const provider = mockLanguageModel([{ reject: apiError(429, true) }, { reject: apiError(503, true) }, { parts: textParts(['ok']) }]);
    const retried = await aiSdkModel(provider, { maxRetries: 2, retryDelayMs: 1 }).call(request());
    expect(retried).toMatchObject({ type: 'response', text: 'ok' });
    expect(provider.calls).toHaveLength(3);

    const exhausted = await aiSdkModel(mockLanguageModel([{ reject: apiError(429, true) }, { reject: apiError(429, true) }]), { maxRetries: 1, retryDelayMs: 1 }).call(request());
    expect(exhausted).toMatchObject({ type: 'failure', code: 'rate_limited', message: expect.stringMatching(/\(after 2 attempts\); retryable/) });

    const unauthorized = mockLanguageModel([{ reject: apiError(401, false) }]);
    expect(await aiSdkModel(unauthorized).call(request())).toMatchObject({ type: 'failure', code: 'auth_failed', message: expect.stringMatching(/not retryable/) });
    expect(unauthorized.calls).toHaveLength(1);
  });

  it('passes the AbortSignal to doStream and ends the run context_canceled when aborted mid-stream', async () => {
    const provider = mockLanguageModel([{ hang: true }]);
    const run = createKernel({ model: aiSdkModel(provider) }).start(['Think forever']);
    for await (const event of run) if (event.type === 'message_start') run.abort('test');
    const result = await run.result;
    expect(result.stop.reason).toBe('context_canceled');
    expect(provider.calls[0]?.abortSignal?.aborted).toBe(true);
  });

  it('throws one ConfigError naming every bad argument', () => {
    const error = (() => {
      try {
        aiSdkModel({ specificationVersion: 'v1' } as never, { maxRetries: -1, pricing: { inputPerMillion: -1, outputPerMillion: 1 } });
      } catch (thrown) {
        return thrown;
      }
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).issues.map((issue) => issue.path)).toEqual([
      'languageModel.specificationVersion',
      'languageModel.doStream',
      'languageModel.provider',
      'languageModel.modelId',
      'options.pricing.inputPerMillion',
      'options.maxRetries',
    ]);
  });

  it('reports the model that answered, from response-metadata', async () => {
    const parts = textParts(['hi']);
    parts.splice(1, 0, { type: 'response-metadata', modelId: 'mock-model-2026-01' });
    const answer = await aiSdkModel(mockLanguageModel([{ parts }])).call(request());
    expect(answer).toMatchObject({ type: 'response', responseModelId: 'mock-model-2026-01' });
  });

  it('prices the usage when pricing is given', async () => {
    const answer = await aiSdkModel(mockLanguageModel([{ parts: textParts(['a', 'b']) }]), { pricing: { inputPerMillion: 1_000_000, outputPerMillion: 0 } }).call(request());
    expect(answer).toMatchObject({ type: 'response', costUsd: 10 });
  });
});

describe('aiSdkModel over a LanguageModelV3 (older provider packages)', () => {
  it('accepts the V3 specification and maps its stream the same way', async () => {
    const v4 = mockLanguageModel([{ parts: toolCallParts([{ id: 'c1', name: 'add', input: '{"a":1,"b":2}' }]) }, { parts: textParts(['3']) }]);
    const v3 = { ...v4, specificationVersion: 'v3' } as unknown as LanguageModelV3;
    const result = await runWorkflow({ model: aiSdkModel(v3), tools: [add], tasks: ['add'] });
    expect(result.tasks[0]?.turns[0]?.toolCalls[0]).toMatchObject({ name: 'add', result: { sum: 3 }, isError: false });
    expect(result.tasks[0]?.output).toBe('3');
  });
});
