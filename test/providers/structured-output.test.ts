/**
 * Typed task outputs ask the provider for structured output: `openaiModel` sends
 * `response_format` `json_schema` (strict when the schema allows it) to an OpenAI-compatible
 * server on 127.0.0.1; `aiSdkModel` passes `responseFormat: { type: 'json', schema, name }`.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { aiSdkModel, createKernel, openaiModel, taskOutput } from 'dualloop';
import { textAnswer } from '../support/openai-compatible-server.js';
import { mockLanguageModel, textParts } from './ai-sdk-mock.js';
import { isolateOpenAIEnvironment, useServer } from './helpers.js';

isolateOpenAIEnvironment();
const server = useServer();

const model = () => openaiModel({ model: 'test-model', baseURL: server().baseURL, apiKey: 'sk-local', maxRetries: 0 });

const Summary = z.object({ title: z.string(), tags: z.array(z.object({ name: z.string(), weight: z.number() })) });

describe('openaiModel: structured output', () => {
  it('sends response_format json_schema, strict, and the answer it gets back is the parsed output', async () => {
    server().enqueue(textAnswer(['{"title": "Q3", ', '"tags": [{"name": "sales", "weight": 0.5}]}']));
    const run = createKernel({ model: model() }).start([{ id: 'summary', description: 'Summarize.', output: Summary }]);
    const result = await run.result;

    const format = server().requests[0]!.body.response_format;
    expect(format).toEqual({
      type: 'json_schema',
      json_schema: {
        name: 'summary',
        strict: true,
        schema: {
          type: 'object',
          properties: {
            title: { type: 'string' },
            tags: {
              type: 'array',
              items: { type: 'object', properties: { name: { type: 'string' }, weight: { type: 'number' } }, required: ['name', 'weight'], additionalProperties: false },
            },
          },
          required: ['title', 'tags'],
          additionalProperties: false,
        },
      },
    });
    expect(result.tasks[0]!.stop.reason).toBe('planner_stopped');
    expect(taskOutput(result, 'summary')).toEqual({ title: 'Q3', tags: [{ name: 'sales', weight: 0.5 }] });
  });

  it('adds additionalProperties: false to a JSON Schema that lists every property but does not say', async () => {
    server().enqueue(textAnswer(['{"n": 1}']));
    const schema = { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] };
    await createKernel({ model: model() }).start([{ id: 'count', description: 'Count.', output: schema }]).result;

    expect(server().requests[0]!.body.response_format.json_schema).toEqual({ name: 'count', strict: true, schema: { ...schema, additionalProperties: false } });
  });

  it('sends strict: false, the schema unchanged, when strict mode cannot express it (an optional property, a record)', async () => {
    server().enqueue(textAnswer(['{"title": "x"}']), textAnswer(['{"a": 1}']));
    const optional = z.object({ title: z.string(), note: z.string().optional() });
    const record = z.record(z.string(), z.number());
    const tasks = [
      { id: 'optional', description: 'One.', output: optional },
      { id: 'record', description: 'Two.', output: record },
    ];
    const result = await createKernel({ model: model() }).start(tasks).result;

    const [first, second] = server().requests.map((request) => request.body.response_format.json_schema);
    expect(first).toMatchObject({ name: 'optional', strict: false, schema: { required: ['title'] } });
    expect(second).toMatchObject({ name: 'record', strict: false, schema: { type: 'object', additionalProperties: { type: 'number' } } });
    expect(result.tasks.map((task) => task.output)).toEqual([{ title: 'x' }, { a: 1 }]);
  });

  it('sends no response_format for a task without output', async () => {
    server().enqueue(textAnswer(['hello']));
    await createKernel({ model: model() }).start(['Say hello']).result;
    expect(server().requests[0]!.body).not.toHaveProperty('response_format');
  });
});

describe('aiSdkModel: structured output', () => {
  it('passes responseFormat { type: json, schema, name } to doStream', async () => {
    const provider = mockLanguageModel([{ parts: textParts(['{"title": "Q3", "tags": []}']) }]);
    const result = await createKernel({ model: aiSdkModel(provider) }).start([{ id: 'summary', description: 'Summarize.', output: Summary }]).result;

    expect(provider.calls[0]!.responseFormat).toEqual({ type: 'json', name: 'summary', schema: expect.objectContaining({ type: 'object', required: ['title', 'tags'] }) });
    expect(result.tasks[0]!.output).toEqual({ title: 'Q3', tags: [] });
  });

  it('passes none for a task without output', async () => {
    const provider = mockLanguageModel([{ parts: textParts(['hi']) }]);
    await createKernel({ model: aiSdkModel(provider) }).start(['Say hi']).result;
    expect(provider.calls[0]!.responseFormat).toBeUndefined();
  });
});
