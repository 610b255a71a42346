import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createKernel, defineTool, runWorkflow } from 'dualloop';
import { collectRun, scriptedModel } from 'dualloop/testing';

const add = defineTool({ name: 'add', description: 'adds', parameters: z.object({ a: z.number(), b: z.number() }), execute: ({ a, b }) => a + b });

describe('smoke', () => {
  it('runs', async () => {
    const model = scriptedModel([{ toolCalls: [{ name: 'add', args: { a: 1, b: 2 } }] }, { text: 'three' }, { text: 'second task done' }]);
    const kernel = createKernel({ model, tools: [add] });
    const run = kernel.start(['add numbers', 'second']);
    const { events, result } = await collectRun(run);
    console.log(JSON.stringify(result, null, 1).slice(0, 3000));
    console.log(events.map((e) => `${e.seq} ${e.type}`).join('\n'));
    expect(result.stop.reason).toBe('goal_achieved');
  });
});
