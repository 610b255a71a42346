import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { aiSdkModel, defineTool, openaiModel, runWorkflow, type Model } from 'dualloop';
import { startOpenAICompatibleServer, status, textAnswer, toolCallAnswer } from '../support/openai-compatible-server.js';
import { makeRequest, useServer } from './helpers.js';

/*
 * A real AI SDK provider package (@ai-sdk/openai-compatible, LanguageModelV4) over HTTP to the
 * local Chat Completions peer: the same scripted conversation gives the same tool-call sequence
 * through `aiSdkModel` as through `openaiModel`.
 */

const server = useServer();

function viaAiSdk(): Model {
  const provider = createOpenAICompatible({ name: 'local', baseURL: server().baseURL, apiKey: 'sk-local', includeUsage: true });
  return aiSdkModel(provider.chatModel('test-model'), { maxRetries: 0 });
}

function viaOpenAI(): Model {
  return openaiModel({ model: 'test-model', baseURL: server().baseURL, apiKey: 'sk-local', maxRetries: 0 });
}

const add = defineTool({
  name: 'add',
  description: 'Adds two numbers',
  parameters: z.object({ a: z.number(), b: z.number() }),
  execute: ({ a, b }) => ({ sum: a + b }),
});

function scriptConversation() {
  server().enqueue(
    toolCallAnswer([
      { id: 'call_1', name: 'add', fragments: ['{"a": 2', ', "b": 3}'] },
      { id: 'call_2', name: 'add', fragments: ['{"a": 5, "b": 8}'] },
    ]),
    toolCallAnswer([{ id: 'call_3', name: 'add', fragments: ['{"a": 13, "b": 0}'] }]),
    textAnswer(['The answer ', 'is 13.']),
  );
}

async function toolCallSequence(model: Model) {
  scriptConversation();
  const result = await runWorkflow({ model, tools: [add], tasks: ['Add things up'] });
  const calls = result.tasks[0]?.turns.flatMap((turn) => turn.toolCalls) ?? [];
  const bodies = server().requests.map((request) => request.body as { messages: unknown[] });
  server().reset();
  return { result, calls, requestCount: bodies.length, lastMessages: bodies.at(-1)?.messages.length };
}

describe('aiSdkModel with @ai-sdk/openai-compatible against the local server', () => {
  it('gives the same tool-call sequence as openaiModel', async () => {
    const viaSdk = await toolCallSequence(viaAiSdk());
    const direct = await toolCallSequence(viaOpenAI());

    expect(viaSdk.calls.map(({ id, name, args, result }) => ({ id, name, args, result }))).toEqual([
      { id: 'call_1', name: 'add', args: { a: 2, b: 3 }, result: { sum: 5 } },
      { id: 'call_2', name: 'add', args: { a: 5, b: 8 }, result: { sum: 13 } },
      { id: 'call_3', name: 'add', args: { a: 13, b: 0 }, result: { sum: 13 } },
    ]);
    expect(viaSdk.calls).toEqual(direct.calls);
    expect(viaSdk.result.tasks[0]?.output).toBe('The answer is 13.');
    expect(viaSdk.result.tasks[0]?.output).toBe(direct.result.tasks[0]?.output);
    expect(viaSdk.result.metrics.inputTokens).toBe(direct.result.metrics.inputTokens);
    expect(viaSdk.result.metrics.outputTokens).toBe(direct.result.metrics.outputTokens);
    expect(viaSdk.requestCount).toBe(3);
    expect(viaSdk.lastMessages).toBe(direct.lastMessages);
  });

  it('says a refused connection once, with the address to check', async () => {
    const closed = await startOpenAICompatibleServer();
    await closed.close();
    const provider = createOpenAICompatible({ name: 'local', baseURL: closed.baseURL, apiKey: 'sk-local' });
    const failure = await aiSdkModel(provider.chatModel('test-model'), { maxRetries: 1, retryDelayMs: 1 }).call(makeRequest());
    expect(failure).toMatchObject({ type: 'failure', code: 'connection_failed' });
    const message = (failure as { message: string }).message;
    expect(message.split('ECONNREFUSED')).toHaveLength(2);
    expect(message).toContain(`(after 2 attempts); retryable; check that the server at ${closed.baseURL}/chat/completions is running and that the provider's base URL is right`);
  });

  it('turns an HTTP error into a named failure that ends the task error', async () => {
    server().enqueue(status(401, 'bad key'));
    const result = await runWorkflow({ model: viaAiSdk(), tasks: ['hi'] });
    expect(result.tasks[0]?.stop).toMatchObject({ reason: 'error', detail: expect.stringContaining('auth_failed') });
  });
});
