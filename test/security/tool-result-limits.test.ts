import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createKernel, defineTool, runWorkflow, type KernelEvent, type Tool } from 'dualloop';
import { scriptedModel } from 'dualloop/testing';

// Issue 15 item 9: tool results and arguments have size and shape limits, each with an option.

function toolReturning(value: () => unknown, name = 'produce'): Tool {
  return defineTool({ name, description: 'Returns something hostile.', parameters: z.object({}).passthrough(), execute: () => value() });
}

function toolThrowing(error: () => unknown): Tool {
  return defineTool({
    name: 'produce',
    description: 'Throws something hostile.',
    parameters: z.object({}),
    execute: () => {
      throw error();
    },
  });
}

async function runOnce(tool: Tool, options: { limits?: Record<string, number>; args?: unknown } = {}) {
  const model = scriptedModel([{ toolCalls: [{ name: tool.name, args: options.args ?? {} }] }, { text: 'done' }]);
  const kernel = createKernel({ model, tools: [tool], ...(options.limits === undefined ? {} : { limits: options.limits }) });
  const run = kernel.start(['go']);
  const events: KernelEvent[] = [];
  for await (const event of run) events.push(event);
  const result = await run.result;
  const call = result.tasks[0]!.turns[0]?.toolCalls[0];
  const seen = model.calls[1]?.messages.find((message) => message.role === 'tool') as { content: string } | undefined;
  return { result, call, seen, events };
}

describe('tool results are bounded', () => {
  it('a 10 MB Uint8Array is a short marker, not ten million numbers', async () => {
    const { result, seen } = await runOnce(toolReturning(() => ({ bytes: new Uint8Array(10_000_000) })));
    expect(result.stop.reason).toBe('goal_achieved');
    expect(seen!.content).toBe('{"bytes":"[Uint8Array of 10000000 bytes]"}');
  });

  it('a 50 MB string is cut at the default limit with a marker', async () => {
    const { call, seen, events } = await runOnce(toolReturning(() => 'x'.repeat(50_000_000)));
    expect(seen!.content.length).toBeLessThan(262_144 + 200);
    expect(seen!.content).toMatch(/… \[truncated: the result is 50000000 characters, the limit is 262144 \(option limits\.toolResultChars\)\]$/);
    expect(String(call!.result).length).toBeLessThan(262_144 + 200);
    const end = events.find((event) => event.type === 'tool_execution_end') as { result: string };
    expect(end.result.length).toBeLessThan(262_144 + 200);
  });

  it('limits.toolResultChars changes the limit; an object past it becomes a cut JSON string with the marker', async () => {
    const rows = Array.from({ length: 10_000 }, (_, index) => ({ index, name: `row ${index}` }));
    const { seen } = await runOnce(toolReturning(() => rows), { limits: { toolResultChars: 1_000 } });
    expect(seen!.content.startsWith('[{"index":0,"name":"row 0"}')).toBe(true);
    expect(seen!.content).toMatch(/truncated: the result is more than 1000 characters, the limit is 1000/);
    expect(seen!.content.length).toBeLessThan(1_400);
  });

  it('a huge result still honours maxRuntime', async () => {
    // The tool ignores its signal and answers 50 MB after the task deadline has passed.
    const late = defineTool({
      name: 'late',
      description: 'Slow and huge.',
      parameters: z.object({}),
      execute: () => new Promise((resolve) => setTimeout(() => resolve('y'.repeat(50_000_000)), 300)),
    });
    const model = scriptedModel([{ toolCalls: [{ name: 'late', args: {} }] }, { text: 'done' }]);
    const result = await runWorkflow({ model, tools: [late], tasks: ['go'], bounds: { inner: { maxRuntimeMs: 100 } } });
    expect(result.stop.reason).toBe('max_runtime');
  });

  it('a circular result is serialised with a marker', async () => {
    const { call, seen } = await runOnce(
      toolReturning(() => {
        const node: Record<string, unknown> = { name: 'root' };
        node['self'] = node;
        return node;
      }),
    );
    expect(call!.isError).toBe(false);
    expect(seen!.content).toBe('{"name":"root","self":"[circular reference]"}');
  });

  it('a BigInt result is serialised as its decimal digits', async () => {
    const { call, seen } = await runOnce(toolReturning(() => ({ big: 12345678901234567890123n })));
    expect(call!.isError).toBe(false);
    expect(seen!.content).toBe('{"big":"12345678901234567890123"}');
  });

  it('a result 5,000 levels deep is cut at limits.toolResultDepth', async () => {
    const { result, seen } = await runOnce(
      toolReturning(() => {
        let value: unknown = 'bottom';
        for (let level = 0; level < 5_000; level++) value = { next: value };
        return value;
      }),
    );
    expect(result.stop.reason).toBe('goal_achieved');
    expect(seen!.content).toContain('[nested deeper than 64 levels]');
  });

  const nested = (levels: number) => () => {
    let value: unknown = 'bottom';
    for (let level = 0; level < levels; level++) value = { next: value };
    return value;
  };

  it.each([70, 150])('limits.toolResultDepth 200 keeps a %i-deep result whole: in the model\'s view, the event and the run result', async (levels) => {
    const { result, call, seen, events } = await runOnce(toolReturning(nested(levels)), { limits: { toolResultDepth: 200 } });
    expect(result.stop.reason).toBe('goal_achieved');
    expect(JSON.parse(seen!.content)).toEqual(nested(levels)());
    expect(call!.result).toEqual(nested(levels)());
    expect((events.find((event) => event.type === 'tool_execution_end') as { result: unknown }).result).toEqual(nested(levels)());
    expect(JSON.stringify(events)).not.toMatch(/nested (deeper|too deep)/);
  });

  it('a 150-deep result under the default limit carries the documented marker everywhere, not the redactor\'s', async () => {
    const { call, seen, events } = await runOnce(toolReturning(nested(150)));
    for (const where of [seen!.content, JSON.stringify(call!.result), JSON.stringify(events)]) {
      expect(where).toContain('[nested deeper than 64 levels]');
      expect(where).not.toContain('nested too deep to inspect');
    }
  });
});

describe('hostile errors and arguments are error tool results', () => {
  it('an error whose message getter throws', async () => {
    const { result, call } = await runOnce(
      toolThrowing(() => {
        const error = new Error('hidden');
        Object.defineProperty(error, 'message', { get: () => { throw new Error('gotcha'); } });
        return error;
      }),
    );
    expect(result.stop.reason).toBe('goal_achieved');
    expect(call!.isError).toBe(true);
    expect(String(call!.result)).toMatch(/could not be read/);
  });

  it('a thrown Proxy whose every trap throws', async () => {
    const hostile = new Proxy({}, { get: () => { throw new Error('trap'); }, getPrototypeOf: () => { throw new Error('trap'); }, ownKeys: () => { throw new Error('trap'); } });
    const { result, call } = await runOnce(toolThrowing(() => hostile));
    expect(result.stop.reason).toBe('goal_achieved');
    expect(call!.isError).toBe(true);
  });

  it('a returned Proxy whose every trap throws', async () => {
    const hostile = new Proxy({}, { get: () => { throw new Error('trap'); }, getPrototypeOf: () => { throw new Error('trap'); }, ownKeys: () => { throw new Error('trap'); } });
    const { result, call } = await runOnce(toolReturning(() => hostile));
    expect(result.stop.reason).toBe('goal_achieved');
    expect(call!.isError).toBe(true);
    expect(call!.result).toBe('trap');
  });

  it('arguments nested 5,000 deep are an error tool result, and the task ends with task_end', async () => {
    let args: unknown = 1;
    for (let level = 0; level < 5_000; level++) args = { a: args };
    const { result, call, events } = await runOnce(toolReturning(() => 'ran'), { args });
    expect(result.stop.reason).toBe('goal_achieved');
    expect(call!.isError).toBe(true);
    expect(String(call!.result)).toMatch(/nested deeper than 64 levels/);
    expect(events.filter((event) => event.type === 'task_end')).toHaveLength(1);
  });
});
