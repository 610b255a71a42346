import { Writable } from 'node:stream';
import fc from 'fast-check';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createKernel, defineTool, memoryStore, StopReason, type KernelEvent, type ModelRequest, type ModelResult, type Usage } from 'dualloop';
import { scriptedModel, type ScriptedModel, type ScriptStep } from 'dualloop/testing';

/*
 * Issue 15, fuzz: random hostile tool results, tool arguments and model text — secrets planted at
 * random places inside them, deep or circular structures, bigints, throwing getters, revoked
 * proxies, thrown non-errors. Every run must end with a named stop reason, within its bounds, and
 * no secret may appear in its events, pino lines, result or store. The usage and cost each answer
 * reports are hostile too (negative, NaN, Infinity, strings, fractions, huge, missing): they end the
 * run as a named model failure and never switch a budget off.
 */

const SECRETS = ['fuzz-db-password-4711', 'sk-fuzzkey-ABCDEFGH12345678', 'x-auth-value-0a1b2c3d'] as const;
const BOUNDS = { inner: { maxTurns: 4, maxToolCalls: 5, maxRuntimeMs: 20_000 }, outer: { maxWorkflowSteps: 3, maxSessionRuntimeMs: 30_000, maxTokens: 1_500, maxCostUsd: 0.02 } };

/** A string with a secret planted inside. */
const plantedString = fc.tuple(fc.string({ maxLength: 30 }), fc.constantFrom(...SECRETS), fc.string({ maxLength: 30 })).map(([before, secret, after]) => `${before}${secret}${after}`);

/** Values a hostile tool (or model) may produce: JSON-like, with secrets, and the awkward kinds. */
const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.anything({ maxDepth: 4, maxKeys: 5, stringUnit: 'grapheme' }),
  plantedString,
  fc.dictionary(fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom('apiKey', 'authorization', ...SECRETS)), fc.oneof(plantedString, fc.anything({ maxDepth: 2 })), { maxKeys: 5 }),
  fc.bigInt(),
  // Built in the property, not here: fast-check inspects what it generates (a revoked proxy throws).
  fc.record({ awkward: fc.constantFrom('circular', 'getter', 'proxy', 'deep', 'huge', 'undefined', 'function'), secret: plantedString }),
);

/** The value itself, with an awkward one built from its description. */
function materialize(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || !('awkward' in value) || !('secret' in value)) return value;
  const { awkward: kind, secret } = value as { awkward: string; secret: string };
  return awkward(kind, secret);
}

function awkward(kind: string, secret: string): unknown {
  switch (kind) {
    case 'circular': {
      const value: Record<string, unknown> = { secret };
      value['self'] = value;
      return value;
    }
    case 'getter':
      return Object.defineProperty({ visible: secret }, 'boom', {
        enumerable: true,
        get: () => {
          throw new Error(`getter failed: ${secret}`);
        },
      });
    case 'proxy': {
      const revocable = Proxy.revocable({ secret }, {});
      revocable.revoke();
      return revocable.proxy;
    }
    case 'deep': {
      let value: unknown = secret;
      for (let level = 0; level < 2_000; level += 1) value = [value];
      return value;
    }
    case 'huge':
      return `${'x'.repeat(200_000)}${secret}`;
    case 'undefined':
      return undefined;
    default:
      return () => secret;
  }
}

const toolOutcome = fc.oneof(
  hostileValue.map((value) => ({ kind: 'return' as const, value })),
  hostileValue.map((value) => ({ kind: 'throw' as const, value })),
  plantedString.map((message) => ({ kind: 'error' as const, value: message })),
);

const toolCall = fc.record({
  name: fc.constantFrom('echo', 'lookup', 'missing_tool'),
  args: fc.oneof(hostileValue, fc.record({ query: plantedString })),
  outcome: toolOutcome,
});

/** A token count a hostile provider may report: mostly plausible, else negative, NaN, ±Infinity, a string, a fraction, huge, missing. */
const hostileCount: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: fc.nat(500), weight: 6 },
  { arbitrary: fc.integer({ min: -1_000_000, max: -1 }), weight: 1 },
  { arbitrary: fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, -0.5, 1e300, 2 ** 53 + 2, Number.MAX_SAFE_INTEGER), weight: 1 },
  { arbitrary: fc.double({ min: 0, max: 1_000, noNaN: true }).filter((value) => !Number.isInteger(value)), weight: 1 },
  { arbitrary: fc.oneof(fc.string({ maxLength: 6 }), fc.nat(500).map(String), fc.constant(null), fc.constant(undefined), fc.boolean()), weight: 1 },
);

/** A whole usage: a record of hostile counts, or not a record at all. */
const hostileUsage: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: fc.record({ inputTokens: hostileCount, outputTokens: hostileCount }), weight: 8 },
  { arbitrary: fc.constantFrom(null, 'lots', 42, [], { inputTokens: 5 }), weight: 1 },
);

/** A cost a provider may report: mostly plausible, else negative, NaN, Infinity or a string. */
const hostileCost: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: fc.constant(undefined), weight: 4 },
  { arbitrary: fc.double({ min: 0, max: 0.01, noNaN: true }), weight: 3 },
  { arbitrary: fc.constantFrom(-1, Number.NaN, Number.POSITIVE_INFINITY, '0.01', null), weight: 1 },
);

const step = fc.record({
  text: fc.option(plantedString, { nil: undefined }),
  calls: fc.array(toolCall, { maxLength: 3 }),
  usage: hostileUsage,
  costUsd: hostileCost,
});

/**
 * The scripted answers, each reporting the usage and cost of its step exactly as generated (the
 * scripted model itself would fill a missing usage in): a custom `Model` whose provider lies.
 */
function withReportedUsage(scripted: ScriptedModel, steps: readonly { readonly usage: unknown; readonly costUsd: unknown }[]): ScriptedModel {
  return Object.assign(Object.create(scripted) as ScriptedModel, {
    call: async (request: ModelRequest): Promise<ModelResult> => {
      const answer = await scripted.call(request);
      const reported = steps[scripted.calls.length - 1];
      if (answer.type !== 'response' || reported === undefined) return answer;
      return { ...answer, usage: reported.usage as Usage, costUsd: reported.costUsd as number };
    },
  });
}

/** What the kernel must accept as usage (ADR 0112): non-negative safe-integer counts and, if given, a non-negative finite cost. */
function validUsage(usage: unknown, costUsd: unknown): boolean {
  if (typeof usage !== 'object' || usage === null) return false;
  const counts = [(usage as Record<string, unknown>)['inputTokens'], (usage as Record<string, unknown>)['outputTokens']];
  const cost = costUsd === undefined || (typeof costUsd === 'number' && Number.isFinite(costUsd) && costUsd >= 0);
  return cost && counts.every((count) => Number.isSafeInteger(count) && (count as number) >= 0);
}

/** Safe enough to search: bigints as text, cycles cut, functions named. */
function searchable(value: unknown): string {
  const seen = new WeakSet<object>();
  try {
    return JSON.stringify(value, (_key, field: unknown) => {
      if (typeof field === 'bigint') return field.toString();
      if (typeof field === 'function') return String(field);
      if (typeof field === 'object' && field !== null) {
        if (seen.has(field)) return '[cycle]';
        seen.add(field);
      }
      return field;
    });
  } catch (error) {
    return `unserialisable: ${String(error)}`;
  }
}

describe('hostile tool results, arguments and model text (fuzz)', () => {
  it('every run ends with a named stop reason, within its bounds, and no secret appears anywhere', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 5 }), async (steps) => {
        const outcomes = new Map<string, { kind: 'return' | 'throw' | 'error'; value: unknown }>();
        const script: ScriptStep[] = steps.map((entry, turn) => ({
          ...(entry.text === undefined ? {} : { text: entry.text }),
          toolCalls: entry.calls.map((call, position) => {
            const id = `call_${turn}_${position}`;
            outcomes.set(id, { kind: call.outcome.kind, value: materialize(call.outcome.value) });
            return { id, name: call.name, args: materialize(call.args) };
          }),
        }));
        const model = withReportedUsage(scriptedModel(script), steps);
        const execute = (_args: unknown, context: { toolCallId: string }) => {
          const outcome = outcomes.get(context.toolCallId);
          if (outcome?.kind === 'throw') throw outcome.value;
          if (outcome?.kind === 'error') throw new Error(String(outcome.value));
          return outcome?.value;
        };
        const tools = [
          defineTool({ name: 'echo', description: 'echo', parameters: z.looseObject({}), execute }),
          defineTool({ name: 'lookup', description: 'lookup', parameters: z.object({ query: z.string() }), execute }),
        ];
        const lines: string[] = [];
        const logger = pino({ level: 'debug' }, new Writable({ write: (chunk, _encoding, done) => (lines.push(String(chunk)), done()) }));
        const store = memoryStore();
        const run = createKernel({ model, tools, store, logger, bounds: BOUNDS, redact: [...SECRETS] }).start(['fuzz the kernel']);
        const events: KernelEvent[] = [];
        for await (const event of run) events.push(event);
        const result = await run.result;

        expect(StopReason.options).toContain(result.stop.reason);
        for (const task of result.tasks) expect(StopReason.options).toContain(task.stop.reason);
        expect(result.metrics.turns).toBeLessThanOrEqual(BOUNDS.inner.maxTurns);
        expect(result.metrics.toolCalls).toBeLessThanOrEqual(BOUNDS.inner.maxToolCalls);
        expect(events.at(-1)?.type).toBe('workflow_end');

        // Usage: a hostile count never reaches a budget. The first answer with bad usage ends the run
        // `error` as the model failure invalid_usage; what was counted stays non-negative integers.
        const answered = steps.slice(0, model.calls.length);
        const firstBad = answered.findIndex((entry) => !validUsage(entry.usage, entry.costUsd));
        if (firstBad >= 0) {
          expect(firstBad).toBe(answered.length - 1);
          expect(result.stop).toMatchObject({ reason: 'error' });
          expect(events.some((event) => event.type === 'error' && event.scope === 'model' && event.message.startsWith('invalid_usage'))).toBe(true);
        }
        for (const count of [result.metrics.inputTokens, result.metrics.outputTokens]) expect(Number.isSafeInteger(count) && count >= 0).toBe(true);
        expect(Number.isFinite(result.metrics.costUsd) && result.metrics.costUsd >= 0).toBe(true);
        // Budgets hold: no model call starts once the tokens or cost counted reach the bound.
        const turns = result.tasks.flatMap((task) => task.turns);
        const before = turns.slice(0, -1);
        expect(before.reduce((total, turn) => total + turn.usage.inputTokens + turn.usage.outputTokens, 0)).toBeLessThan(BOUNDS.outer.maxTokens);
        expect(before.reduce((total, turn) => total + turn.costUsd, 0)).toBeLessThan(BOUNDS.outer.maxCostUsd);

        const stored = [await store.readEvents(run.runId), await store.loadResult(run.runId), await store.loadCheckpoint(run.runId), await store.getRun(run.runId)];
        for (const [name, text] of Object.entries({ events: searchable(events), pino: lines.join(''), result: searchable(result), store: searchable(stored) })) {
          for (const secret of SECRETS) expect(text.includes(secret), `${secret} in ${name}`).toBe(false);
        }
      }),
      { numRuns: 100 },
    );
  });
});
