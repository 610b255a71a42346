/**
 * Budgets across three levels of delegation (property): whatever each level spends per call and
 * whether it delegates, the tokens answered across every run of the tree pass the root's
 * `maxTokens` by at most one model call (delegation is sequential: one call in flight at a time),
 * and the root's metrics count every one of them.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { agentTool, createKernel, defineTool, memoryStore, StopReason, type Model } from 'dualloop';
import { scriptedModel, type ScriptCall, type ScriptStep } from 'dualloop/testing';

const MAX_CALL = 50;

function levelOf(call: ScriptCall): number {
  const task = call.messages.find((message) => message.role === 'user')?.content ?? '';
  return Number(/level (\d)/.exec(typeof task === 'string' ? task : '')?.[1] ?? 0);
}

describe('delegation budgets (property)', () => {
  it('never pass the root budget by more than one model call, and the root counts all of it', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ tokens: fc.integer({ min: 1, max: MAX_CALL }), delegate: fc.boolean() }), { minLength: 5, maxLength: 40 }),
        fc.integer({ min: 20, max: 400 }),
        async (plan, maxTokens) => {
          let step = 0;
          let answered = 0;
          const script = (call: ScriptCall): ScriptStep => {
            const next = plan[step % plan.length]!;
            step += 1;
            const level = levelOf(call);
            const tokens = next.tokens;
            const toolCalls = next.delegate && level < 3 ? [{ name: `level${level + 1}` }] : [{ name: 'work' }];
            return { toolCalls, usage: { inputTokens: tokens, outputTokens: 0 } };
          };
          const scripted = scriptedModel(script);
          const counting: Model = {
            ...scripted,
            call: async (request) => {
              const result = await scripted.call(request);
              if (result.type === 'response') answered += result.usage.inputTokens + result.usage.outputTokens;
              return result;
            },
          };
          const work = defineTool({ name: 'work', description: 'Works.', parameters: z.object({}), execute: () => 'ok' });
          const level3 = agentTool({ name: 'level3', description: 'Level 3.', parameters: z.object({}), tasks: ['level 3'] });
          const level2 = agentTool({ name: 'level2', description: 'Level 2.', parameters: z.object({}), tasks: ['level 2'], tools: [work, level3] });
          const level1 = agentTool({ name: 'level1', description: 'Level 1.', parameters: z.object({}), tasks: ['level 1'], tools: [work, level2] });
          const kernel = createKernel({ model: counting, tools: [work, level1], store: memoryStore(), loopDetection: false, bounds: { inner: { maxTurns: 100, maxToolCalls: 200 }, outer: { maxTokens } } });
          const result = await kernel.start(['level 0']).result;
          expect(StopReason.options).toContain(result.stop.reason);
          expect(answered).toBeLessThan(maxTokens + MAX_CALL);
          expect(result.metrics.inputTokens + result.metrics.outputTokens).toBe(answered);
        },
      ),
      { numRuns: 40 },
    );
  }, 60_000);
});
