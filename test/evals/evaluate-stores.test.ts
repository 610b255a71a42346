/**
 * kernel.evaluate on each store: the same suite with a scripted candidate gives the same report
 * byte for byte on memory, SQLite and Postgres (a manual clock: timestamps too), eval runs carry
 * `evalOf` in their records and listings, a fork-point case replays from the point, and a suite
 * interrupted mid-case finishes on the next call without running a finished case again.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createKernel, defineTool, memoryStore, outputEquals, postgresStore, sqliteStore, stopReasonMatches, toolTrajectoryMatches, type CheckpointStore, type EvalCase, type EvaluateOptions } from 'dualloop';
import { manualClock, scriptedModel, type ScriptCall, type ScriptStep } from 'dualloop/testing';
import { postgresUrl, useSchemas } from '../support/postgres.js';
import { useTempDir } from '../store/temp-dir.js';

const CITIES = ['Oslo', 'Rome', 'Lima'] as const;
const cityOf = (call: ScriptCall) => String(call.messages.find((message) => message.role === 'user')?.content ?? '').replace('Weather in ', '');
const lastIsTool = (call: ScriptCall) => call.messages.at(-1)?.role === 'tool';

function weatherTool(live: string[]) {
  return defineTool({ name: 'weather', description: 'The weather in a city.', parameters: z.object({ city: z.string() }), execute: ({ city }) => (live.push(city), `rain in ${city}`) });
}

/** Looks the city up, then repeats what it read; the candidate says it differently for Lima. */
function forecaster(candidate: boolean, calls: { count: number } = { count: 0 }) {
  return scriptedModel((call): ScriptStep => {
    calls.count += 1;
    const city = cityOf(call);
    if (!lastIsTool(call)) return { toolCalls: [{ name: 'weather', args: { city } }], usage: { inputTokens: 50, outputTokens: 5 }, costUsd: 0.001 };
    const seen = String(call.messages.at(-1)?.content);
    return { text: candidate && city === 'Lima' ? `Forecast: ${seen}` : seen, usage: { inputTokens: 80, outputTokens: 6 }, costUsd: 0.001 };
  });
}

async function record(store: CheckpointStore) {
  const kernel = createKernel({ name: 'weather', model: forecaster(false), tools: [weatherTool([])], store, clock: manualClock() });
  for (const city of CITIES) await kernel.start([`Weather in ${city}`], { runId: `base-${city}` }).result;
}

const CASES: EvalCase[] = [...CITIES.map((city) => ({ runId: `base-${city}` })), { name: 'rome-from-turn-2', runId: 'base-Rome', at: { task: 1, turn: 2 } }];
const OPTIONS: EvaluateOptions = { suite: 'nightly', scorers: [stopReasonMatches(), outputEquals(), toolTrajectoryMatches()], concurrency: 2 };

async function evaluateOn(store: CheckpointStore) {
  await record(store);
  const live: string[] = [];
  const report = await createKernel({ name: 'weather', model: forecaster(true), tools: [weatherTool(live)], store, clock: manualClock() }).evaluate(CASES, OPTIONS);
  return { report, live };
}

const schema = useSchemas('evals');
const opened: CheckpointStore[] = [];
afterAll(async () => {
  for (const store of opened) await store.close?.();
});

describe.each([
  ['sqliteStore', (directory: string) => sqliteStore({ path: join(directory, 'runs.db') })],
  ['postgresStore', () => postgresStore({ connectionString: postgresUrl() }, { schema: schema(), maxConnections: 3 })],
] as const)('kernel.evaluate on %s', (_name, makeStore) => {
  const directory = useTempDir('dualloop-evals-');
  const open = () => {
    const store = makeStore(directory());
    opened.push(store);
    return store;
  };

  it('gives the memory store’s report byte for byte, records evalOf, and serves every tool call from the recording', async () => {
    const reference = await evaluateOn(memoryStore());
    const store = open();
    const { report, live } = await evaluateOn(store);
    expect(JSON.stringify(report)).toBe(JSON.stringify(reference.report));
    expect(live).toEqual([]);
    expect(report.means).toEqual({ stopReasonMatches: 1, outputEquals: 0.75, toolTrajectoryMatches: 1 });
    expect(report.cases.map((entry) => [entry.name, entry.divergedAt ?? null])).toEqual([
      ['base-Oslo', null],
      ['base-Rome', null],
      ['base-Lima', 2],
      ['rome-from-turn-2', null],
    ]);
    expect(await store.getRun('nightly.base-Lima')).toMatchObject({ evalOf: { runId: 'base-Lima', suite: 'nightly' } });
    const listed = await store.listRuns({ limit: 20 });
    expect(listed.filter((run) => run.evalOf !== undefined).map((run) => [run.runId, run.evalOf])).toEqual(
      expect.arrayContaining([
        ['nightly.base-Oslo', { runId: 'base-Oslo', suite: 'nightly' }],
        ['nightly.rome-from-turn-2', { runId: 'base-Rome', suite: 'nightly' }],
      ]),
    );
    expect(listed.find((run) => run.runId === 'base-Oslo')?.evalOf).toBeUndefined();
  });

  it('an interrupted suite resumes the case cut mid-run and does not run a finished case again', async () => {
    const store = open();
    await record(store);
    const controller = new AbortController();
    const calls: string[] = [];
    const inner = forecaster(true);
    // The suite is cancelled during Rome's first model call: that case is cut mid-run.
    const model = { ...inner, call: (request: Parameters<typeof inner.call>[0]) => {
      const city = String(request.messages.find((message) => message.role === 'user')?.content ?? '').replace('Weather in ', '');
      calls.push(city);
      if (city === 'Rome' && !controller.signal.aborted) controller.abort();
      return inner.call(request);
    } };
    const kernel = createKernel({ name: 'weather', model, tools: [weatherTool([])], store, clock: manualClock() });
    const cases = CASES.slice(0, 3);
    const first = await kernel.evaluate(cases, { ...OPTIONS, concurrency: 1, signal: controller.signal });
    expect(first.stop).toBe('context_canceled');
    expect(first.cases.map((entry) => entry.status)).toEqual(['evaluated', 'skipped', 'skipped']);
    expect(first.cases[1]!.problem).toBe('the suite was cancelled while this case ran: evaluate again to resume it');
    expect((await store.loadResult('nightly.base-Rome'))?.stop.reason).toBe('context_canceled');
    calls.length = 0;
    const second = await kernel.evaluate(cases, { ...OPTIONS, concurrency: 1 });
    expect(second.stop).toBe('completed');
    expect(second.cases.map((entry) => entry.status)).toEqual(['evaluated', 'evaluated', 'evaluated']);
    expect(calls).not.toContain('Oslo');
    expect(calls.filter((city) => city === 'Lima')).toHaveLength(2);
    expect(second.cases[1]!.candidate?.runId).toBe('nightly.base-Rome');
    expect(second.cases[1]!.scores.map((score) => score.score)).toEqual([1, 1, 1]);
    expect(JSON.stringify(second.cases[0])).toBe(JSON.stringify(first.cases[0]));
  });
});
