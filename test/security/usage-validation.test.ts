import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createKernel, defineTool, runWorkflow, type KernelEvent, type Model, type ModelResult } from 'dualloop';
import { openaiModel } from '../../src/providers/openai-model.js';
import { chunk, stream } from '../support/openai-compatible-server.js';
import { isolateOpenAIEnvironment, useServer } from '../providers/helpers.js';

// Issue 15 item 7: usage from the wire or any provider is validated before a budget counts it.

isolateOpenAIEnvironment();
const server = useServer();

const echo = defineTool({ name: 'echo', description: 'Echoes.', parameters: z.object({ n: z.number() }), execute: ({ n }) => n });
const budget = { inner: { maxTokens: 1_000, maxCostUsd: 1 }, outer: { maxTokens: 1_000 } };

/** A model of any provider that answers a tool call every turn with the given usage and cost. */
function modelReporting(usage: unknown, costUsd: unknown = 0): Model {
  return {
    provider: 'custom',
    modelId: 'hostile',
    call: async (request) =>
      ({ type: 'response', text: '', toolCalls: [{ id: `c${request.callIndex}`, name: 'echo', args: { n: request.callIndex } }], usage, costUsd, finishReason: 'tool_calls' }) as ModelResult,
  };
}

describe('usage reported by any provider is validated', () => {
  it.each([
    ['a negative input count', { inputTokens: -1_000_000, outputTokens: 1 }, 0, /usage\.inputTokens is -1000000/],
    ['a string count', { inputTokens: '12', outputTokens: 1 }, 0, /usage\.inputTokens is the string "12"/],
    ['an infinite count', { inputTokens: 1, outputTokens: Infinity }, 0, /usage\.outputTokens is Infinity/],
    ['NaN', { inputTokens: Number.NaN, outputTokens: 1 }, 0, /usage\.inputTokens is NaN/],
    ['a fraction', { inputTokens: 1.5, outputTokens: 1 }, 0, /usage\.inputTokens is 1\.5/],
    ['no usage at all', undefined, 0, /usage is undefined/],
    ['a negative cost', { inputTokens: 1, outputTokens: 1 }, -5, /costUsd is -5/],
    ['an infinite cost', { inputTokens: 1, outputTokens: 1 }, -Infinity, /costUsd is -Infinity/],
  ])('%s is the named model error invalid_usage, not a budget bypass', async (_name, usage, costUsd, problem) => {
    const result = await runWorkflow({ model: modelReporting(usage, costUsd), tools: [echo], tasks: ['spend'], bounds: budget });
    expect(result.stop.reason).toBe('error');
    expect(result.stop.detail).toMatch(/invalid_usage/);
    expect(result.stop.detail).toMatch(problem);
    expect(result.metrics.toolCalls).toBe(0);
  });
});

describe('a response that states no cost', () => {
  it('is the named model error invalid_usage, not a cost budget turned NaN', async () => {
    const model: Model = {
      provider: 'custom',
      modelId: 'costless',
      call: async (request) =>
        ({ type: 'response', text: '', toolCalls: [{ id: `c${request.callIndex}`, name: 'echo', args: { n: 1 } }], usage: { inputTokens: 1, outputTokens: 1 }, finishReason: 'tool_calls' }) as unknown as ModelResult,
    };
    const result = await runWorkflow({ model, tools: [echo], tasks: ['spend'], bounds: budget });
    expect(result.stop).toMatchObject({ reason: 'error', detail: expect.stringMatching(/invalid_usage.*costUsd is missing/) });
    expect(Number.isNaN(result.metrics.costUsd)).toBe(false);
  });
});

describe('usage reported to a plan strategy', () => {
  it('a planner reporting negative usage fails as invalid_usage instead of lowering the spend', async () => {
    const planner: Model = {
      provider: 'custom',
      modelId: 'planner',
      call: async () => ({ type: 'response', text: '1. do it', toolCalls: [], usage: { inputTokens: -1_000_000, outputTokens: 0 }, costUsd: 0, finishReason: 'stop' }),
    };
    const result = await runWorkflow({ model: modelReporting({ inputTokens: 1, outputTokens: 1 }), planner, strategy: 'plan_execute', goal: 'do it', tools: [echo], bounds: budget });
    expect(result.stop.reason).toBe('error');
    expect(result.stop.detail).toMatch(/invalid_usage/);
    expect(result.metrics.inputTokens).toBeGreaterThanOrEqual(0);
  });
});

describe('usage on the OpenAI wire', () => {
  const model = () => openaiModel({ model: 'test-model', baseURL: server().baseURL, apiKey: 'sk-local', maxRetries: 0 });
  const toolTurn = (usage: Record<string, unknown> | undefined) =>
    stream([
      chunk.toolCall({ index: 0, id: 'call_1', name: 'echo', arguments: '{"n":1}' }),
      chunk.finish('tool_calls'),
      ...(usage === undefined ? [] : [{ chunk: { id: 'x', object: 'chat.completion.chunk', created: 0, model: 'test-model', choices: [], usage } }]),
      chunk.done(),
    ]);

  it.each([
    ['negative', { prompt_tokens: -1_000_000, completion_tokens: 5 }],
    ['string', { prompt_tokens: '100', completion_tokens: 5 }],
    ['float', { prompt_tokens: 10.25, completion_tokens: 5 }],
    ['huge beyond safe integers', { prompt_tokens: 1e300, completion_tokens: 5 }],
  ])('a %s token count ends the run error / invalid_usage', async (_name, usage) => {
    server().enqueue(toolTurn(usage));
    const result = await runWorkflow({ model: model(), tools: [echo], tasks: ['spend'], bounds: budget });
    expect(result.stop.reason).toBe('error');
    expect(result.stop.detail).toMatch(/invalid_usage/);
  });

  it('a response without usage counts a stated estimate, so a token budget still stops the run', async () => {
    for (let turn = 0; turn < 5; turn++) server().enqueue(toolTurn(undefined));
    const kernel = createKernel({ model: model(), tools: [echo], system: 'x'.repeat(400), bounds: { inner: { maxTokens: 150, maxTurns: 5 } } });
    const run = kernel.start(['spend']);
    const events: KernelEvent[] = [];
    for await (const event of run) events.push(event);
    const result = await run.result;
    expect(result.stop.reason).toBe('budget_exhausted');
    expect(result.metrics.inputTokens).toBeGreaterThan(100);
    const warnings = events.filter((event) => event.type === 'warning').map((event) => (event as { message: string }).message);
    expect(warnings.some((message) => /no usage.*estimate/.test(message))).toBe(true);
  });
});
