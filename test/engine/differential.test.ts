import fc from 'fast-check';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { createEngine, defineTool, loopEngine, terminate, type EngineAdapter, type EngineEvent } from 'dualloop';
import { scriptedModel, type ScriptStep } from 'dualloop/testing';
import { contractViolations, drain } from './contract.js';

// One scripted agent, two engines: for random deterministic scripts both must call the same tools
// in the same order, with the same outcomes, and stop for the same reason.

const note = defineTool({ name: 'note', description: 'notes', parameters: z.object({ n: z.number(), text: z.string() }), execute: ({ n, text }) => `noted ${n}: ${text}` });
const fail = defineTool({
  name: 'fail',
  description: 'throws',
  parameters: z.object({ n: z.number() }),
  execute: ({ n }) => {
    throw new Error(`failure ${n}`);
  },
});
const finish = defineTool({ name: 'finish', description: 'ends', parameters: z.object({ n: z.number() }), execute: ({ n }) => terminate(`finished ${n}`) });
const TOOLS = [note, fail, finish];

type CallKind = 'ok' | 'throws' | 'unknown' | 'invalid' | 'terminates';
type TurnPlan = { kind: 'text'; text: string } | { kind: 'tools'; calls: CallKind[] } | { kind: 'model_error' };

const turnPlan: fc.Arbitrary<TurnPlan> = fc.oneof(
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('text' as const), text: fc.string({ minLength: 0, maxLength: 8 }) }) },
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('tools' as const),
      calls: fc.array(fc.constantFrom<CallKind>('ok', 'ok', 'throws', 'unknown', 'invalid', 'terminates'), { minLength: 0, maxLength: 3 }),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'model_error' as const }) },
);

/** The plan as scripted steps; every call gets fresh arguments, so no engine sees a repeated call. */
function toScript(plan: readonly TurnPlan[]): ScriptStep[] {
  let n = 0;
  return plan.map((turn): ScriptStep => {
    if (turn.kind === 'text') return { text: turn.text, usage: { inputTokens: 3, outputTokens: 1 } };
    if (turn.kind === 'model_error') return { error: 'scripted provider failure' };
    return {
      text: `turn with ${turn.calls.length} calls`,
      usage: { inputTokens: 2, outputTokens: 2 },
      toolCalls: turn.calls.map((kind) => {
        n += 1;
        if (kind === 'ok') return { name: 'note', args: { n, text: 'x' } };
        if (kind === 'throws') return { name: 'fail', args: { n } };
        if (kind === 'unknown') return { name: 'missing', args: { n } };
        if (kind === 'invalid') return { name: 'note', args: { n, text: n } };
        return { name: 'finish', args: { n } };
      }),
    };
  });
}

interface Observed {
  readonly toolCalls: readonly (readonly [number, string, string, boolean])[];
  readonly turnEnds: readonly number[];
  readonly stopReason: string;
  readonly text: string;
  readonly metrics: { readonly turns: number; readonly toolCalls: number };
  readonly messages: unknown;
}

async function observe(adapter: EngineAdapter): Promise<Observed> {
  const events = await drain(adapter.stream({ prompt: 'work through the plan' }));
  expect(contractViolations(events)).toEqual([]);
  const done = events.at(-1) as Extract<EngineEvent, { type: 'done' }>;
  return {
    toolCalls: events.flatMap((event) => (event.type === 'tool_call_end' ? [[event.turnIndex, event.toolCallId, event.name, event.isError] as const] : [])),
    turnEnds: events.flatMap((event) => (event.type === 'turn_end' ? [event.turnIndex] : [])),
    stopReason: done.output.stopReason,
    text: done.output.text,
    metrics: { turns: done.output.metrics.turns, toolCalls: done.output.metrics.toolCalls },
    messages: adapter.saveState!().messages,
  };
}

describe('differential: dualloop engine vs loop engine', () => {
  it('same tool-call sequence and same stop reason for random scripts', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(turnPlan, { minLength: 1, maxLength: 7 }), fc.integer({ min: 1, max: 6 }), async (plan, maxTurns) => {
        const script = toScript(plan);
        const kernel = await observe(createEngine({ model: scriptedModel(script), tools: TOOLS, bounds: { inner: { maxTurns } } }));
        const loop = await observe(loopEngine({ model: scriptedModel(script), tools: TOOLS, maxTurns }));
        expect(loop.toolCalls).toEqual(kernel.toolCalls);
        expect(loop.stopReason).toBe(kernel.stopReason);
        // Beyond the contract's minimum, the runs agree on everything they report.
        expect(loop).toEqual(kernel);
      }),
      { numRuns: 150, seed: 20_261_122 },
    );
  });

  it('a tool sees the same run context on both engines: the task id is the first task\'s', async () => {
    const seen = (engine: 'kernel' | 'loop') => {
      const taskIds: string[] = [];
      const probe = defineTool({ name: 'probe', description: 'records its context', parameters: z.object({}), execute: (_args, context) => void taskIds.push(context.taskId) });
      const script: ScriptStep[] = [{ toolCalls: [{ name: 'probe', args: {} }] }, { text: 'done' }];
      const adapter = engine === 'kernel' ? createEngine({ model: scriptedModel(script), tools: [probe] }) : loopEngine({ model: scriptedModel(script), tools: [probe] });
      return drain(adapter.stream({ prompt: 'go' })).then(() => taskIds);
    };
    const [kernel, loop] = [await seen('kernel'), await seen('loop')];
    expect(kernel).toEqual(['task-1']);
    expect(loop).toEqual(kernel);
  });

  it('the scripts cover every stop reason the two engines share', async () => {
    const reasons = new Set<string>();
    for (const plan of fc.sample(fc.array(turnPlan, { minLength: 1, maxLength: 7 }), { numRuns: 150, seed: 20_261_122 })) {
      const events = await drain(loopEngine({ model: scriptedModel(toScript(plan)), tools: TOOLS, maxTurns: 4 }).stream({ prompt: 'go' }));
      reasons.add((events.at(-1) as Extract<EngineEvent, { type: 'done' }>).output.stopReason);
    }
    expect([...reasons].sort()).toEqual(['error', 'max_turns', 'planner_stopped', 'tool_terminated']);
  });
});
