import { createAnthropic } from '@ai-sdk/anthropic';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { aiSdkModel, defineTool, runWorkflow } from 'dualloop';
import { anthropicText, anthropicToolUse } from '../support/anthropic-frames.js';
import { status } from '../support/openai-compatible-server.js';
import { useServer } from './helpers.js';

/*
 * The docs' Anthropic example, run: the real `@ai-sdk/anthropic` provider (LanguageModelV4) over
 * HTTP to the local test server answering Anthropic Messages frames. The same conversation as
 * ai-sdk-openai-compatible.test.ts: two tool calls, one more, then the answer.
 */

const server = useServer();
const KEY = 'sk-ant-local-0123456789abcdef';

function claude(options: { pricing?: { inputPerMillion: number; outputPerMillion: number } } = {}) {
  const anthropic = createAnthropic({ baseURL: server().baseURL, apiKey: KEY });
  return aiSdkModel(anthropic('claude-test'), { maxRetries: 0, ...options });
}

const add = defineTool({ name: 'add', description: 'Adds two numbers', parameters: z.object({ a: z.number(), b: z.number() }), execute: ({ a, b }) => ({ sum: a + b }) });

describe('aiSdkModel with @ai-sdk/anthropic against the local server', () => {
  it('runs the tool-call conversation: calls, results sent back, usage, cost and the span provider', async () => {
    server().enqueue(
      anthropicToolUse([
        { id: 'toolu_1', name: 'add', fragments: ['{"a": 2', ', "b": 3}'] },
        { id: 'toolu_2', name: 'add', fragments: ['{"a": 5, "b": 8}'] },
      ], { usage: [400, 30] }),
      anthropicToolUse([{ id: 'toolu_3', name: 'add', fragments: ['{"a": 13, "b": 0}'] }], { usage: [500, 20] }),
      anthropicText(['The answer ', 'is 13.'], { usage: [600, 10] }),
    );
    const exporter = new InMemorySpanExporter();
    const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer('test');
    const result = await runWorkflow({ model: claude({ pricing: { inputPerMillion: 3, outputPerMillion: 15 } }), tools: [add], tasks: ['Add things up'], telemetry: { tracer }, redact: [KEY] });

    expect(result.stop.reason).toBe('goal_achieved');
    expect(result.tasks[0]?.turns.flatMap((turn) => turn.toolCalls).map(({ id, name, args, result: value }) => ({ id, name, args, result: value }))).toEqual([
      { id: 'toolu_1', name: 'add', args: { a: 2, b: 3 }, result: { sum: 5 } },
      { id: 'toolu_2', name: 'add', args: { a: 5, b: 8 }, result: { sum: 13 } },
      { id: 'toolu_3', name: 'add', args: { a: 13, b: 0 }, result: { sum: 13 } },
    ]);
    expect(result.tasks[0]?.output).toBe('The answer is 13.');
    expect(result.metrics).toMatchObject({ inputTokens: 1500, outputTokens: 60, costUsd: (1500 * 3 + 60 * 15) / 1_000_000 });

    const requests = server().requests;
    expect(requests.map((request) => request.path)).toEqual(['/v1/messages', '/v1/messages', '/v1/messages']);
    expect(requests[0]?.headers['x-api-key']).toBe(KEY);
    expect((requests[0]?.body as { tools: { name: string }[] }).tools.map((tool) => tool.name)).toEqual(['add']);
    // The second request carries both results back as tool_result blocks of one user message.
    const results = (requests[1]?.body as { messages: { role: string; content: { type: string; tool_use_id?: string }[] }[] }).messages.at(-1);
    expect(results?.role).toBe('user');
    expect(results?.content.filter((block) => block.type === 'tool_result').map((block) => block.tool_use_id)).toEqual(['toolu_1', 'toolu_2']);

    const chat = exporter.getFinishedSpans().find((span) => span.name === 'chat claude-test');
    expect(chat?.attributes).toMatchObject({ 'gen_ai.provider.name': 'anthropic', 'dualloop.model.provider': 'anthropic.messages', 'gen_ai.response.model': 'claude-test-20260101' });
  });

  it('turns an overloaded or refused request into a named failure that ends the task error', async () => {
    server().enqueue(status(529, 'Overloaded'));
    const overloaded = await runWorkflow({ model: claude(), tasks: ['hi'] });
    expect(overloaded.tasks[0]?.stop).toMatchObject({ reason: 'error', detail: expect.stringContaining('HTTP 529') });
    server().enqueue(status(401, 'invalid x-api-key'));
    const refused = await runWorkflow({ model: claude(), tasks: ['hi'] });
    expect(refused.tasks[0]?.stop).toMatchObject({ reason: 'error', detail: expect.stringContaining('auth_failed') });
    expect(JSON.stringify([overloaded, refused])).not.toContain(KEY);
  });
});
