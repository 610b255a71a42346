import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { createKernel, defineTool, type AfterToolCall, type BeforeToolCall } from 'dualloop';
import { collectRun, scriptedModel } from 'dualloop/testing';
import { toolMessages } from './helpers.js';

function echoTool(log: string[]) {
  return defineTool({
    name: 'echo',
    description: 'returns its text',
    parameters: z.object({ text: z.string() }),
    execute: ({ text }) => {
      log.push(`execute:${text}`);
      return `echo ${text}`;
    },
  });
}

const oneCall = (text: string) => scriptedModel([{ toolCalls: [{ name: 'echo', args: { text }, id: 'c1' }] }, { text: 'done' }]);

describe('beforeToolCall / afterToolCall', () => {
  it('a before hook that blocks: the tool does not run and the model sees the reason as an error result', async () => {
    const log: string[] = [];
    const model = oneCall('rm -rf /');
    const beforeToolCall: BeforeToolCall = (invocation) => (invocation.name === 'echo' ? { block: 'destructive input' } : undefined);
    const { events, result } = await collectRun(createKernel({ model, tools: [echoTool(log)], beforeToolCall }).start(['echo']));

    expect(log).toEqual([]);
    expect(toolMessages(model.calls[1]!.messages)).toEqual([['c1', 'Error: blocked: destructive input']]);
    expect(model.calls[1]!.messages.at(-1)).toMatchObject({ role: 'tool', isError: true });
    expect(result.tasks[0]!.turns[0]!.toolCalls[0]).toMatchObject({ isError: true });
    expect(events.find((event) => event.type === 'tool_execution_end')).toMatchObject({ executed: false, isError: true });
    expect(result.tasks[0]!.stop.reason).toBe('planner_stopped');
  });

  it('a before hook that replaces the arguments: the tool runs with the new ones', async () => {
    const log: string[] = [];
    const model = oneCall('hello');
    const beforeToolCall: BeforeToolCall = (invocation) => ({ args: { text: `${(invocation.args as { text: string }).text}!` } });
    const { result } = await collectRun(createKernel({ model, tools: [echoTool(log)], beforeToolCall }).start(['echo']));

    expect(log).toEqual(['execute:hello!']);
    expect(toolMessages(model.calls[1]!.messages)).toEqual([['c1', 'echo hello!']]);
    expect(result.tasks[0]!.turns[0]!.toolCalls[0]).toMatchObject({ args: { text: 'hello!' }, result: 'echo hello!' });
  });

  it('replaced arguments are validated again: invalid ones become an error result and the tool does not run', async () => {
    const log: string[] = [];
    const model = oneCall('hello');
    const beforeToolCall: BeforeToolCall = () => ({ args: { text: 42 } });
    await collectRun(createKernel({ model, tools: [echoTool(log)], beforeToolCall }).start(['echo']));

    expect(log).toEqual([]);
    expect(toolMessages(model.calls[1]!.messages)[0]![1]).toMatch(/^Error: arguments from beforeToolCall are invalid/);
  });

  it('an after hook that swaps the result: the model and the turn see the replacement', async () => {
    const model = oneCall('secret');
    const afterToolCall: AfterToolCall = (_invocation, outcome) => ({ result: `[redacted ${String(outcome.result).length} chars]` });
    const { result } = await collectRun(createKernel({ model, tools: [echoTool([])], afterToolCall }).start(['echo']));

    expect(toolMessages(model.calls[1]!.messages)).toEqual([['c1', '[redacted 11 chars]']]);
    expect(result.tasks[0]!.turns[0]!.toolCalls[0]).toMatchObject({ result: '[redacted 11 chars]', isError: false });
  });

  it('an after hook may turn a result into an error', async () => {
    const model = oneCall('x');
    const afterToolCall: AfterToolCall = () => ({ result: 'rejected by review', isError: true });
    await collectRun(createKernel({ model, tools: [echoTool([])], afterToolCall }).start(['echo']));
    expect(model.calls[1]!.messages.at(-1)).toMatchObject({ role: 'tool', content: 'Error: rejected by review', isError: true });
  });

  it('runs before hook → tool → after hook, each seeing what the previous one produced', async () => {
    const log: string[] = [];
    const beforeToolCall: BeforeToolCall = (invocation) => {
      log.push(`before:${(invocation.args as { text: string }).text}`);
      return { args: { text: 'rewritten' } };
    };
    const afterToolCall: AfterToolCall = (invocation, outcome) => {
      log.push(`after:${(invocation.args as { text: string }).text}:${String(outcome.result)}`);
    };
    const model = oneCall('original');
    await collectRun(createKernel({ model, tools: [echoTool(log)], beforeToolCall, afterToolCall }).start(['echo']));
    expect(log).toEqual(['before:original', 'execute:rewritten', 'after:rewritten:echo rewritten']);
  });

  it('hands the hooks the invocation (run, task, turn, call id, name) and an AbortSignal', async () => {
    const seen: unknown[] = [];
    const beforeToolCall: BeforeToolCall = (invocation, signal) => {
      seen.push({ ...invocation, signal: signal instanceof AbortSignal });
    };
    const model = oneCall('x');
    const run = createKernel({ model, tools: [echoTool([])], beforeToolCall }).start(['echo'], { runId: 'hooks-run' });
    await collectRun(run);
    expect(seen).toEqual([{ runId: 'hooks-run', taskId: 'task-1', turn: 1, toolCallId: 'c1', name: 'echo', args: { text: 'x' }, signal: true }]);
  });
});
