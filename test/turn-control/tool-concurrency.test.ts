import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { createKernel, defineTool, type ToolExecution } from 'dualloop';
import { collectRun, scriptedModel } from 'dualloop/testing';
import { sleep } from './helpers.js';

/** A tool that records how many of its calls run at the same moment. */
function gauge() {
  const state = { running: 0, peak: 0 };
  const tool = defineTool({
    name: 'probe',
    description: 'counts concurrent calls',
    parameters: z.object({ label: z.string() }),
    executionMode: 'parallel',
    execute: async ({ label }) => {
      state.running += 1;
      state.peak = Math.max(state.peak, state.running);
      await sleep(15);
      state.running -= 1;
      return label;
    },
  });
  return { tool, state };
}

const LABELS = ['a', 'b', 'c', 'd', 'e', 'f', 'g'];

describe('toolConcurrency', () => {
  it.each<ToolExecution>(['parallel', 'batch'])('caps the calls running at once in %s mode and keeps source order', async (toolExecution) => {
    const { tool, state } = gauge();
    const model = scriptedModel([{ toolCalls: LABELS.map((label) => ({ name: 'probe', args: { label } })) }, { text: 'done' }]);
    const { result } = await collectRun(createKernel({ model, tools: [tool], toolExecution, toolConcurrency: 2 }).start(['probe']));
    expect(state.peak).toBe(2);
    expect(result.tasks[0]!.turns[0]!.toolCalls.map((call) => call.result)).toEqual(LABELS);
  });

  it('is unlimited by default', async () => {
    const { tool, state } = gauge();
    const model = scriptedModel([{ toolCalls: LABELS.map((label) => ({ name: 'probe', args: { label } })) }, { text: 'done' }]);
    await collectRun(createKernel({ model, tools: [tool], toolExecution: 'parallel' }).start(['probe']));
    expect(state.peak).toBe(LABELS.length);
  });

  it('rejects a cap that is not a positive integer', () => {
    expect(() => createKernel({ model: scriptedModel([]), toolConcurrency: 0 })).toThrow(/toolConcurrency/);
  });
});
