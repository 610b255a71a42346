import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { createKernel, defineTool, type KernelOptions } from 'dualloop';
import { collectRun, scriptedModel } from 'dualloop/testing';
import { unpairedToolCalls } from './helpers.js';

const echo = defineTool({ name: 'echo', description: 'echo', parameters: z.object({}), execute: () => 'ok' });

describe('a hook that throws', () => {
  it.each<[string, Partial<KernelOptions>]>([
    [
      'beforeToolCall',
      {
        beforeToolCall: () => {
          throw new Error('before exploded');
        },
      },
    ],
    [
      'afterToolCall',
      {
        afterToolCall: async () => {
          throw new Error('after exploded');
        },
      },
    ],
  ])('%s: ends the task `error` (the run resolves, the process lives)', async (name, hooks) => {
    const model = scriptedModel([{ toolCalls: [{ name: 'echo' }] }, { text: 'never asked' }]);
    const { events, result } = await collectRun(createKernel({ model, tools: [echo], ...hooks }).start(['echo', 'second task']));

    expect(result.tasks).toHaveLength(1);
    expect(result.tasks[0]!.stop.reason).toBe('error');
    expect(result.tasks[0]!.stop.detail).toContain(`${name} threw`);
    expect(result.stop.reason).toBe('error');
    expect(model.calls).toHaveLength(1);
    expect(events.some((event) => event.type === 'error' && event.scope === 'hook' && event.message.includes(name))).toBe(true);
    expect(unpairedToolCalls(events)).toEqual([]);
  });

  it('a throwing before hook on one parallel call stops the others of the batch', async () => {
    let signalled = 0;
    const slow = defineTool({
      name: 'slow',
      description: 'waits for its signal',
      parameters: z.object({ id: z.number() }),
      executionMode: 'parallel',
      execute: (_args, { signal }) =>
        new Promise((resolve) => {
          signal.addEventListener('abort', () => {
            signalled += 1;
            resolve('aborted');
          });
        }),
    });
    const model = scriptedModel([{ toolCalls: [{ name: 'slow', args: { id: 1 } }, { name: 'slow', args: { id: 2 } }] }]);
    const beforeToolCall = ({ args }: { args: unknown }) => {
      if ((args as { id: number }).id === 2) throw new Error('no');
    };
    const { events, result } = await collectRun(createKernel({ model, tools: [slow], beforeToolCall }).start(['go']));
    expect(result.tasks[0]!.stop.reason).toBe('error');
    expect(signalled).toBe(1);
    // Both calls report their end: the aborted one and the one whose hook threw.
    expect(unpairedToolCalls(events)).toEqual([]);
    expect(events.filter((event) => event.type === 'tool_execution_end')).toHaveLength(2);
  });
});
