import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, runWorkflow, type ToolMessage } from 'dualloop';
import { scriptedModel } from 'dualloop/testing';
import { addTool } from '../support/kernel-fixtures.js';

const failing = defineTool({
  name: 'explode',
  description: 'Always throws.',
  parameters: z.object({}),
  execute: () => {
    throw new Error('boom');
  },
});

const slow = defineTool({
  name: 'slow',
  description: 'Never finishes on its own.',
  parameters: z.object({}),
  timeoutMs: 30,
  execute: (_args, { signal }) => new Promise((resolve) => signal.addEventListener('abort', () => resolve('late'))),
});

function toolMessagesSeenOnCall(model: ReturnType<typeof scriptedModel>, call: number): ToolMessage[] {
  return model.calls[call]!.messages.filter((message): message is ToolMessage => message.role === 'tool');
}

describe('tool failures are error results the model sees, and the run goes on', () => {
  it.each([
    { name: 'a throwing tool', call: { name: 'explode', args: {} }, expected: 'boom' },
    { name: 'invalid arguments', call: { name: 'add', args: { a: 'one', b: 2 } }, expected: 'invalid arguments for "add"' },
    { name: 'an unknown tool', call: { name: 'teleport', args: {} }, expected: 'unknown tool "teleport"' },
    { name: 'a timed-out tool', call: { name: 'slow', args: {} }, expected: 'timed out after 30 ms' },
  ])('$name', async ({ call, expected }) => {
    const model = scriptedModel([{ toolCalls: [call] }, { text: 'recovered' }]);
    const result = await runWorkflow({ model, tools: [addTool, failing, slow], tasks: ['try'] });

    const seen = toolMessagesSeenOnCall(model, 1);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.isError).toBe(true);
    expect(seen[0]!.content).toContain(expected);
    expect(result.tasks[0]!.stop.reason).toBe('planner_stopped');
    expect(result.tasks[0]!.turns[0]!.toolCalls[0]!.isError).toBe(true);
  });

  it('gives a malformed-JSON call an error result', async () => {
    const model = {
      ...scriptedModel([]),
      calls: [] as unknown[],
      async call(request: { callIndex: number }) {
        return request.callIndex === 0
          ? { type: 'response' as const, text: '', toolCalls: [{ id: 'c1', name: 'add', args: undefined, argumentsError: 'Unexpected token }' }], usage: { inputTokens: 0, outputTokens: 0 }, costUsd: 0, finishReason: 'tool_calls' as const }
          : { type: 'response' as const, text: 'ok', toolCalls: [], usage: { inputTokens: 0, outputTokens: 0 }, costUsd: 0, finishReason: 'stop' as const };
      },
    };
    const result = await runWorkflow({ model, tools: [addTool], tasks: ['try'] });
    expect(String(result.tasks[0]!.turns[0]!.toolCalls[0]!.result)).toContain('invalid JSON arguments');
    expect(result.tasks[0]!.stop.reason).toBe('planner_stopped');
  });
});

describe('a model error', () => {
  it('ends the task error with the partial turns kept', async () => {
    const model = scriptedModel([{ toolCalls: [{ name: 'add', args: { a: 1, b: 2 } }] }, { error: 'upstream 500' }]);
    const result = await runWorkflow({ model, tools: [addTool], tasks: ['one', 'two'] });

    expect(result.stop.reason).toBe('error');
    expect(result.tasks).toHaveLength(1);
    const task = result.tasks[0]!;
    expect(task.stop.reason).toBe('error');
    expect(task.stop.detail).toContain('upstream 500');
    expect(task.turns).toHaveLength(2);
    expect(task.turns[0]!.toolCalls[0]!.result).toBe(3);
  });

  it('ends the task error when a model adapter throws instead of returning a failure', async () => {
    const model = { provider: 'test', modelId: 'throws', call: async () => Promise.reject(new Error('adapter bug')) };
    const result = await runWorkflow({ model, tasks: ['one'] });
    expect(result.stop.reason).toBe('error');
    expect(result.stop.detail).toContain('adapter bug');
  });
});
