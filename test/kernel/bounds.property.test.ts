import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createKernel, defineTool, StopReason } from 'dualloop';
import { collectRun, scriptedModel, type ScriptStep } from 'dualloop/testing';

const stepArbitrary: fc.Arbitrary<ScriptStep> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ text: fc.string({ maxLength: 8 }), usage: fc.record({ inputTokens: fc.nat(60), outputTokens: fc.nat(60) }) }) },
  {
    weight: 6,
    arbitrary: fc.record({
      toolCalls: fc.array(fc.record({ name: fc.constantFrom('work', 'fail', 'missing'), args: fc.record({ n: fc.nat(3) }) }), { minLength: 0, maxLength: 4 }),
      usage: fc.record({ inputTokens: fc.nat(60), outputTokens: fc.nat(60) }),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ error: 'random model failure' }) },
);

const boundsArbitrary = fc.record({
  maxTurns: fc.integer({ min: 1, max: 8 }),
  maxToolCalls: fc.integer({ min: 1, max: 10 }),
  maxTokens: fc.option(fc.integer({ min: 1, max: 400 }), { nil: undefined }),
});

describe('no run exceeds its bounds (property)', () => {
  it('ends every random run with a reason from the enum, within every bound', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(stepArbitrary, { minLength: 1, maxLength: 30 }), boundsArbitrary, fc.integer({ min: 1, max: 3 }), async (script, bounds, taskCount) => {
        const executedByTask = new Map<string, number>();
        const count = (taskId: string) => executedByTask.set(taskId, (executedByTask.get(taskId) ?? 0) + 1);
        const work = defineTool({ name: 'work', description: 'works', parameters: z.object({ n: z.number() }), execute: (_args, { taskId }) => (count(taskId), 'ok') });
        const fail = defineTool({
          name: 'fail',
          description: 'fails',
          parameters: z.object({ n: z.number() }),
          execute: (_args, { taskId }) => {
            count(taskId);
            throw new Error('tool failure');
          },
        });
        const model = scriptedModel(script);
        const inner = { maxTurns: bounds.maxTurns, maxToolCalls: bounds.maxToolCalls, ...(bounds.maxTokens === undefined ? {} : { maxTokens: bounds.maxTokens }) };
        const tasks = Array.from({ length: taskCount }, (_, index) => `task ${index}`);
        const { result, events } = await collectRun(createKernel({ model, tools: [work, fail], bounds: { inner }, onTaskStop: 'continue' }).start(tasks));

        expect(StopReason.options).toContain(result.stop.reason);
        expect(events[events.length - 1]!.type).toBe('workflow_end');
        const maxTurnTokens = Math.max(0, ...script.map((step) => (step.usage ? step.usage.inputTokens + step.usage.outputTokens : 0)));
        for (const task of result.tasks) {
          expect(StopReason.options).toContain(task.stop.reason);
          expect(task.turnCount).toBeLessThanOrEqual(bounds.maxTurns);
          expect(task.toolCalls).toBeLessThanOrEqual(bounds.maxToolCalls);
          expect(executedByTask.get(task.taskId) ?? 0).toBeLessThanOrEqual(bounds.maxToolCalls);
          if (bounds.maxTokens !== undefined) {
            expect(task.usage.inputTokens + task.usage.outputTokens).toBeLessThan(bounds.maxTokens + maxTurnTokens + 1);
          }
        }
      }),
      { numRuns: 150 },
    );
  });
});
