/**
 * Random graphs (random edges, durations, failures, approvals, maxParallelTasks 1–8) through the
 * public API: no task starts before its dependencies end, no more than maxParallelTasks run at
 * once, no task runs twice, and the workflow's token budget is never overshot by more than one
 * model call per running task (docs/workflows.md).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createKernel, defineTool, StopReason, type KernelEvent } from 'dualloop';
import { collectRun, scriptedModel, type ScriptCall, type ScriptStep } from 'dualloop/testing';

interface TaskPlan {
  /** Indexes of earlier tasks it waits for. */
  readonly dependsOn: readonly number[];
  readonly turns: number;
  readonly delayMs: number;
  readonly fate: 'finish' | 'loop' | 'park';
}

const USAGE = { inputTokens: 7, outputTokens: 3 };
const CALL_TOKENS = USAGE.inputTokens + USAGE.outputTokens;

const graphArbitrary = fc.integer({ min: 1, max: 9 }).chain((size) =>
  fc.tuple(
    fc.tuple(
      ...Array.from({ length: size }, (_, index) =>
        fc.record({
          dependsOn: index === 0 ? fc.constant([] as number[]) : fc.uniqueArray(fc.nat(index - 1), { maxLength: Math.min(3, index) }),
          turns: fc.integer({ min: 1, max: 3 }),
          delayMs: fc.integer({ min: 0, max: 4 }),
          fate: fc.constantFrom<TaskPlan['fate']>('finish', 'finish', 'finish', 'loop', 'park'),
        }),
      ),
    ),
    fc.integer({ min: 1, max: 8 }),
    fc.option(fc.integer({ min: CALL_TOKENS, max: 30 * CALL_TOKENS }), { nil: undefined }),
  ),
);

function taskName(call: ScriptCall): string {
  const first = call.messages.find((message) => message.role === 'user');
  return typeof first?.content === 'string' ? first.content : '';
}

describe('graph workflows (property)', () => {
  it('respect dependencies, maxParallelTasks, run each task once, and hold the budget within one call per running task', async () => {
    await fc.assert(
      fc.asyncProperty(graphArbitrary, async ([plans, maxParallelTasks, maxTokens]) => {
        const work = defineTool({ name: 'work', description: 'works', parameters: z.object({ step: z.number() }), execute: () => 'ok' });
        const deploy = defineTool({ name: 'deploy', description: 'deploys', parameters: z.object({}), execute: () => 'deployed' });
        const model = scriptedModel((call): ScriptStep => {
          const index = Number(taskName(call).split(' ')[1]);
          const plan = plans[index]!;
          const turn = call.messages.filter((message) => message.role === 'assistant').length + 1;
          const base = { usage: USAGE, delayMs: plan.delayMs };
          if (plan.fate === 'park' && turn === 1) return { ...base, toolCalls: [{ name: 'deploy', id: `deploy-${index}` }] };
          if (plan.fate === 'loop' || turn < plan.turns) return { ...base, toolCalls: [{ name: 'work', args: { step: plan.fate === 'loop' ? 0 : turn } }] };
          return { ...base, text: `task ${index} done` };
        });
        const kernel = createKernel({
          model,
          tools: [work, deploy],
          loopDetection: false,
          policy: { checkToolCall: ({ name }) => (name === 'deploy' ? { decision: 'require_approval', reason: 'a human deploys' } : { decision: 'allow' }) },
          bounds: { inner: { maxTurns: 3 }, outer: { maxParallelTasks, ...(maxTokens === undefined ? {} : { maxTokens }) } },
        });
        const tasks = plans.map((plan, index) => ({ id: `t${index}`, description: `task ${index}`, dependsOn: plan.dependsOn.map((dependency) => `t${dependency}`) }));
        const { result, events } = await collectRun(kernel.start(tasks));

        expect(StopReason.options).toContain(result.stop.reason);
        const running = new Set<string>();
        const ended = new Map<string, KernelEvent & { type: 'task_end' }>();
        const started = new Set<string>();
        // A task that waits for a failed one ends `dependency_failed` without running (its start and end are reported together).
        const unrun = new Set(events.flatMap((event) => (event.type === 'task_end' && event.stop.reason === 'dependency_failed' ? [event.taskId] : [])));
        let most = 0;
        for (const event of events) {
          if (event.type === 'task_start' && unrun.has(event.taskId)) continue;
          if (event.type === 'task_start') {
            expect(started.has(event.taskId), `${event.taskId} started twice`).toBe(false);
            started.add(event.taskId);
            const plan = plans[Number(event.taskId.slice(1))]!;
            for (const dependency of plan.dependsOn) expect(ended.has(`t${dependency}`), `${event.taskId} started before t${dependency} ended`).toBe(true);
            running.add(event.taskId);
            most = Math.max(most, running.size);
          }
          if (event.type === 'task_end') {
            if (unrun.has(event.taskId)) expect(plans[Number(event.taskId.slice(1))]!.dependsOn.some((dependency) => ended.has(`t${dependency}`))).toBe(true);
            running.delete(event.taskId);
            ended.set(event.taskId, event);
          }
        }
        expect(most).toBeLessThanOrEqual(maxParallelTasks);
        const spent = result.metrics.inputTokens + result.metrics.outputTokens;
        if (maxTokens !== undefined) expect(spent).toBeLessThanOrEqual(maxTokens + maxParallelTasks * CALL_TOKENS);
        // Every task ended once, or never started because something it waits for did not finish.
        for (const [index, plan] of plans.entries()) {
          const end = ended.get(`t${index}`);
          if (end === undefined) continue;
          if (plan.fate === 'loop' && end.stop.reason !== 'dependency_failed' && result.stop.reason !== 'budget_exhausted') {
            expect(['max_turns', 'budget_exhausted', 'awaiting_approval', 'context_canceled']).toContain(end.stop.reason);
          }
        }
      }),
      { numRuns: 60 },
    );
  }, 120_000);
});
