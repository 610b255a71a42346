/**
 * Rate limits per model: parallel branches and runs of one process share one limit and never
 * exceed it in any minute (property test, manual clock); a wait is an event and counts against the
 * task's runtime; a provider's 429 with `retry-after` feeds the limiter instead of failing the task.
 */
import { setImmediate as tick } from 'node:timers/promises';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createKernel, isDualloopError, openaiModel, withRateLimit, type KernelEvent, type Model, type WorkflowResult } from 'dualloop';
import { manualClock, scriptedModel, type ScriptStep } from 'dualloop/testing';
import { startOpenAICompatibleServer, status, textAnswer } from '../support/openai-compatible-server.js';

const LONG = { inner: { maxRuntimeMs: 86_400_000 }, outer: { maxSessionRuntimeMs: 86_400_000, maxParallelTasks: 8 } };

/** Advances the manual clock a second at a time until every run has ended. */
async function drive(clock: ReturnType<typeof manualClock>, results: Promise<WorkflowResult>[]): Promise<WorkflowResult[]> {
  let done = false;
  const all = Promise.all(results).finally(() => (done = true));
  for (let step = 0; !done && step < 100_000; step += 1) {
    await tick();
    await tick();
    clock.advance(1_000);
  }
  return all;
}

/** The most call starts in any half-open minute [t, t + 60 s). */
function busiestMinute(starts: readonly number[]): number {
  const sorted = [...starts].sort((a, b) => a - b);
  let most = 0;
  for (let first = 0, last = 0; last < sorted.length; last += 1) {
    while (sorted[last]! - sorted[first]! >= 60_000) first += 1;
    most = Math.max(most, last - first + 1);
  }
  return most;
}

describe('rateLimit: requests per minute', () => {
  it('parallel branches of two runs sharing a model never start more calls in any minute than the limit (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 5 }), fc.integer({ min: 1, max: 3 }), async (perMinute, branches, toolTurns) => {
        const clock = manualClock();
        const starts: number[] = [];
        const script = scriptedModel((call): ScriptStep => {
          starts.push(clock.now());
          const turns = call.messages.filter((message) => message.role === 'tool').length;
          return turns < toolTurns ? { toolCalls: [{ name: 'noop', args: { n: turns } }] } : { text: 'done' };
        });
        const model = withRateLimit(script, { requestsPerMinute: perMinute });
        const tasks = Array.from({ length: branches }, (_, index) => ({ id: `b${index}`, description: `branch ${index}`, dependsOn: [] }));
        const kernel = (name: string) => createKernel({ model, clock, bounds: LONG, loopDetection: false, name });
        const runs = [kernel('one').start(tasks).result, kernel('two').start(tasks).result];
        const results = await drive(clock, runs);
        expect(results.map((result) => result.stop.reason)).toEqual(['goal_achieved', 'goal_achieved']);
        expect(starts).toHaveLength(2 * branches * (toolTurns + 1));
        expect(busiestMinute(starts)).toBeLessThanOrEqual(perMinute);
      }),
      { numRuns: 15 },
    );
  });

  it('reports each wait as an event and counts it against the task runtime', async () => {
    const clock = manualClock();
    const model = withRateLimit(scriptedModel(() => ({ text: 'ok' })), { requestsPerMinute: 1 });
    const events: KernelEvent[] = [];
    const run = createKernel({ model, clock, bounds: { inner: { maxRuntimeMs: 30_000 }, outer: { maxSessionRuntimeMs: 86_400_000 } } }).start(['one', 'two']);
    void (async () => {
      for await (const event of run) events.push(event);
    })();
    const [result] = await drive(clock, [run.result]);
    // The second task waits a minute for its call, past its 30 s runtime bound.
    expect(result!.tasks.map((task) => task.stop.reason)).toEqual(['planner_stopped', 'max_runtime']);
    const wait = events.find((event) => event.type === 'rate_limit_wait');
    expect(wait).toMatchObject({ taskId: 'task-2', turn: 1, model: 'scripted/scripted', reason: 'requests' });
    expect((wait as { waitMs: number }).waitMs).toBeGreaterThan(50_000);
  });
});

describe('rateLimit: tokens per minute', () => {
  it('reserves the input estimate plus maxOutputTokens, and settles with the real usage', async () => {
    const clock = manualClock();
    const starts: number[] = [];
    const script = scriptedModel((): ScriptStep => (starts.push(clock.now()), { text: 'ok', usage: { inputTokens: 40, outputTokens: 10 } }));
    // Each call reserves 8 input tokens (31 characters) + 50 output: two fit in 170 tokens a minute before settling.
    const model = withRateLimit(script, { tokensPerMinute: 170 }, { maxOutputTokens: 50 });
    const tasks = ['a', 'b', 'c', 'd'].map((id) => ({ id, description: id, dependsOn: [] }));
    const [result] = await drive(clock, [createKernel({ model, clock, bounds: LONG }).start(tasks).result]);
    expect(result!.stop.reason).toBe('goal_achieved');
    // Settled at 50 tokens each, three calls fit in a minute; the fourth waits for the first to leave.
    expect(busiestMinute(starts)).toBe(3);
    expect(Math.max(...starts) - Math.min(...starts)).toBeGreaterThanOrEqual(60_000);
  });
});

describe('rateLimit: the provider says 429', () => {
  it('waits retry-after and calls again instead of failing the task', async () => {
    const server = await startOpenAICompatibleServer();
    try {
      server.enqueue(status(429, 'slow down', { headers: { 'retry-after-ms': '200' } }), textAnswer(['fine now']));
      const model = openaiModel({ model: 'gpt-4.1-mini', baseURL: server.baseURL, apiKey: 'test-key', maxRetries: 0, rateLimit: { requestsPerMinute: 100 } });
      const events: KernelEvent[] = [];
      const run = createKernel({ model }).start(['say something']);
      for await (const event of run) events.push(event);
      const result = await run.result;
      expect(result.stop.reason).toBe('goal_achieved');
      expect(result.tasks[0]!.output).toBe('fine now');
      expect(events.find((event) => event.type === 'rate_limit_wait')).toMatchObject({ reason: 'retry_after', model: 'openai/gpt-4.1-mini' });
    } finally {
      await server.close();
    }
  });

  it('a custom model whose calls keep being refused fails after the retries, named', async () => {
    let calls = 0;
    const refusing: Model = {
      provider: 'custom',
      modelId: 'busy',
      rateLimit: { requestsPerMinute: 1000 },
      call: async () => (calls += 1, { type: 'failure', code: 'rate_limited', message: 'busy', retryAfterMs: 1 }),
    };
    const result = await createKernel({ model: refusing }).start(['x']).result;
    expect(result.stop).toMatchObject({ reason: 'error', code: 'model_failed' });
    expect(calls).toBe(6);
  });

  it('a bad rateLimit is a ConfigError naming the field', () => {
    const model = { ...scriptedModel(() => ({ text: 'x' })), rateLimit: { requestsPerMinute: 0 } };
    expect(() => createKernel({ model })).toThrow(/model\.rateLimit\.requestsPerMinute/);
    expect(() => withRateLimit(scriptedModel(() => ({ text: 'x' })), {})).toSatisfy((thrower: () => unknown) => {
      try {
        thrower();
        return false;
      } catch (error) {
        return isDualloopError(error, 'config_invalid') && /must set requestsPerMinute, tokensPerMinute or both/.test(JSON.stringify((error as { issues: unknown }).issues));
      }
    });
  });
});
