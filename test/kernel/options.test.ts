import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigError, createKernel, defineTool, type KernelOptions } from 'dualloop';
import { scriptedModel } from 'dualloop/testing';

function configError(run: () => unknown): ConfigError {
  try {
    run();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('option validation', () => {
  it('throws one ConfigError naming every bad field, before anything runs', () => {
    const model = scriptedModel([{ text: 'never' }]);
    const error = configError(() =>
      createKernel({
        model,
        bounds: { inner: { maxTurns: -1 }, outer: { maxSessionRuntimeMs: 1.5 } },
        toolExecution: 'sideways',
        steeringMode: 'some',
        loopDetection: { threshold: 1 },
        wrapUpOnBound: 'yes',
        surprise: true,
      } as unknown as KernelOptions),
    );
    const paths = error.issues.map((issue) => issue.path).sort();
    expect(paths).toEqual(['', 'bounds.inner.maxTurns', 'bounds.outer.maxSessionRuntimeMs', 'loopDetection.threshold', 'steeringMode', 'toolExecution', 'wrapUpOnBound'].sort());
    expect(error.message).toContain('bounds.inner.maxTurns');
    expect(error.code).toBe('config_invalid');
    expect(model.calls).toHaveLength(0);
  });

  it('rejects a missing model and tools not made with defineTool or with duplicate names', () => {
    const tool = defineTool({ name: 'same', description: 'x', parameters: z.object({}), execute: () => 1 });
    const error = configError(() =>
      createKernel({ tools: [tool, tool, { name: 'raw', description: 'raw', parameters: z.object({}), execute: () => 1 }] } as unknown as KernelOptions),
    );
    expect(error.issues.map((issue) => issue.path)).toEqual(expect.arrayContaining(['model', 'tools.1.name', 'tools.2']));
  });

  it('validates tasks at start(), naming each bad task', () => {
    const kernel = createKernel({ model: scriptedModel([]) });
    const error = configError(() => kernel.start(['ok', '', { description: 'x', bounds: { maxTurns: 0 } }, { id: 'a', description: 'y' }, { id: 'a', description: 'z' }]));
    expect(error.issues.map((issue) => issue.path)).toEqual(expect.arrayContaining(['tasks.1', 'tasks.2.bounds.maxTurns']));
    expect(() => kernel.start([{ id: 'a', description: 'y' }, { id: 'a', description: 'z' }])).toThrow(/duplicate task id "a"/);
    expect(() => kernel.start([])).toThrow(ConfigError);
  });

  it('rejects a bad tool definition in defineTool with every field named', () => {
    const error = configError(() => defineTool({ name: 'has space', description: '', parameters: z.string() as never, execute: 1 as never, timeoutMs: -5 }));
    expect(error.issues.map((issue) => issue.path).sort()).toEqual(['description', 'execute', 'name', 'parameters', 'timeoutMs']);
  });
});

describe('per-task bounds', () => {
  it('override the inner defaults for that task only', async () => {
    const model = scriptedModel(({ index }) => ({ toolCalls: [{ name: 'unknown', args: { n: index } }] }));
    const kernel = createKernel({ model, bounds: { inner: { maxTurns: 5 } }, onTaskStop: 'continue' });
    const result = await kernel.start([{ description: 'short', bounds: { maxTurns: 2 } }, 'long']).result;
    expect(result.tasks.map((task) => task.turnCount)).toEqual([2, 5]);
  });
});
