/**
 * kernel.evaluate on recorded runs: each tool mode, resume of an interrupted suite, the shared
 * budget, a task-list case with an expected value.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  createKernel,
  defineTool,
  isDualloopError,
  memoryStore,
  outputEquals,
  stopReasonMatches,
  toolTrajectoryMatches,
  type CheckpointStore,
  type EvalScorer,
  type Model,
} from 'dualloop';
import { scriptedModel, type ScriptCall, type ScriptStep } from 'dualloop/testing';

const lastIsTool = (call: ScriptCall) => call.messages.at(-1)?.role === 'tool';
const taskOf = (call: ScriptCall) => String(call.messages.find((message) => message.role === 'user')?.content ?? '');

/** A weather tool whose live answers differ from the recording's: a live call is visible. */
function weather(calls: string[]) {
  return defineTool({
    name: 'weather',
    description: 'The weather in a city.',
    parameters: z.object({ city: z.string() }),
    execute: ({ city }) => (calls.push(city), `live: sunny in ${city}`),
  });
}

/** Asks the weather of the city the task names (or `askFor`), then answers with what it read. */
function forecaster(options: { askFor?: string; answer?: (seen: string) => string; costUsd?: number } = {}): Model {
  return scriptedModel((call): ScriptStep => {
    const city = options.askFor ?? taskOf(call).replace('Weather in ', '');
    if (!lastIsTool(call)) return { toolCalls: [{ name: 'weather', args: { city } }], costUsd: options.costUsd ?? 0 };
    const seen = String(call.messages.at(-1)?.content);
    return { text: options.answer?.(seen) ?? seen, costUsd: options.costUsd ?? 0 };
  });
}

async function recordBaselines(store: CheckpointStore, cities: readonly string[]) {
  const recorded: string[] = [];
  const tool = defineTool({ name: 'weather', description: 'The weather in a city.', parameters: z.object({ city: z.string() }), execute: ({ city }) => (recorded.push(city), `rain in ${city}`) });
  const kernel = createKernel({ model: forecaster(), tools: [tool], store });
  for (const city of cities) await kernel.start([`Weather in ${city}`], { runId: `base-${city}` }).result;
  return recorded;
}

describe('kernel.evaluate: recorded runs replayed with a candidate', () => {
  it('recorded: tool calls that match the recording get its results; the tool never runs', async () => {
    const store = memoryStore();
    await recordBaselines(store, ['Oslo', 'Rome']);
    const live: string[] = [];
    const candidate = createKernel({ model: forecaster({ answer: (seen) => `Forecast: ${seen}` }), tools: [weather(live)], store });
    const report = await candidate.evaluate([{ runId: 'base-Oslo' }, { runId: 'base-Rome' }], { suite: 'upgrade', scorers: [stopReasonMatches(), outputEquals(), toolTrajectoryMatches()] });
    expect(live).toEqual([]);
    expect(report.cases.map((entry) => [entry.name, entry.candidate?.output, entry.baseline?.output])).toEqual([
      ['base-Oslo', 'Forecast: rain in Oslo', 'rain in Oslo'],
      ['base-Rome', 'Forecast: rain in Rome', 'rain in Rome'],
    ]);
    expect(report.means).toEqual({ stopReasonMatches: 1, outputEquals: 0, toolTrajectoryMatches: 1 });
    expect(report.cases[0]!.scores.find((score) => score.scorer === 'outputEquals')?.reason).toBe('got "Forecast: rain in Oslo", expected "rain in Oslo"');
    expect(report.cases[0]!.divergedAt).toBe(2);
    expect(await store.getRun('upgrade.base-Oslo')).toMatchObject({ evalOf: { runId: 'base-Oslo', suite: 'upgrade' } });
    expect((await store.listRuns()).find((run) => run.runId === 'upgrade.base-Rome')?.evalOf).toEqual({ runId: 'base-Rome', suite: 'upgrade' });
  });

  it('recorded: an unmatched call is an error result saying so; recorded-or-live runs it; live runs every call', async () => {
    const store = memoryStore();
    await recordBaselines(store, ['Oslo']);
    const run = async (tools: 'recorded' | 'recorded-or-live' | 'live', suite: string) => {
      const live: string[] = [];
      const kernel = createKernel({ model: forecaster({ askFor: 'Bergen' }), tools: [weather(live)], store });
      const report = await kernel.evaluate([{ runId: 'base-Oslo' }], { suite, tools, scorers: [outputEquals()] });
      return { live, output: report.cases[0]!.candidate?.output };
    };
    const recorded = await run('recorded', 's1');
    expect(recorded.live).toEqual([]);
    expect(recorded.output).toMatch(/^Error: .*no recorded call of "weather" with these arguments is left in the baseline run/);
    expect(await run('recorded-or-live', 's2')).toEqual({ live: ['Bergen'], output: 'live: sunny in Bergen' });
    const oslo = createKernel({ model: forecaster(), tools: [weather([])], store });
    const report = await oslo.evaluate([{ runId: 'base-Oslo' }], { suite: 's3', tools: 'live', scorers: [outputEquals()] });
    expect(report.cases[0]!.candidate?.output).toBe('live: sunny in Oslo');
  });

  it('a task-list case is scored against its expected value', async () => {
    const kernel = createKernel({ model: scriptedModel(() => ({ text: '42' })) });
    const report = await kernel.evaluate([{ name: 'answer', tasks: ['What is six times seven?'], expected: '42' }, { tasks: ['Again?'], expected: { output: '41', stop: 'goal_achieved' } }], {
      suite: 'math',
      scorers: [outputEquals(), stopReasonMatches()],
    });
    expect(report.cases.map((entry) => [entry.name, entry.scores.map((score) => score.score)])).toEqual([
      ['answer', [1, 0]],
      ['case-2', [0, 1]],
    ]);
    expect(report.cases[0]!.scores[1]!.reason).toBe('the case has no baseline or expected stop reason');
  });

  it('an interrupted suite resumes: finished cases are not run again', async () => {
    const store = memoryStore();
    await recordBaselines(store, ['Oslo', 'Rome', 'Pisa']);
    let calls = 0;
    const counting = scriptedModel((call): ScriptStep => (calls += 1, lastIsTool(call) ? { text: 'done' } : { toolCalls: [{ name: 'weather', args: { city: taskOf(call).replace('Weather in ', '') } }] }));
    const kernel = createKernel({ model: counting, tools: [weather([])], store });
    const controller = new AbortController();
    const first = await kernel.evaluate([{ runId: 'base-Oslo' }, { runId: 'base-Rome' }, { runId: 'base-Pisa' }], {
      suite: 'resume',
      scorers: [stopReasonMatches()],
      signal: controller.signal,
      onCase: (_report, done) => {
        if (done === 1) controller.abort();
      },
    });
    expect(first.stop).toBe('context_canceled');
    expect(first.cases.map((entry) => entry.status)).toEqual(['evaluated', 'skipped', 'skipped']);
    expect(calls).toBe(2);
    const second = await kernel.evaluate([{ runId: 'base-Oslo' }, { runId: 'base-Rome' }, { runId: 'base-Pisa' }], { suite: 'resume', scorers: [stopReasonMatches()] });
    expect(second.stop).toBe('completed');
    expect(second.cases.map((entry) => entry.status)).toEqual(['evaluated', 'evaluated', 'evaluated']);
    // Oslo was not run again: two calls for each of the two other cases.
    expect(calls).toBe(6);
    expect(JSON.stringify(second.cases[0])).toBe(JSON.stringify(first.cases[0]));
  });

  it('stops the suite budget_exhausted once maxCostUsd is spent; the cases not started are skipped', async () => {
    const store = memoryStore();
    await recordBaselines(store, ['Oslo', 'Rome', 'Pisa']);
    const kernel = createKernel({ model: forecaster({ costUsd: 0.02 }), tools: [weather([])], store });
    const report = await kernel.evaluate([{ runId: 'base-Oslo' }, { runId: 'base-Rome' }, { runId: 'base-Pisa' }], { suite: 'budget', scorers: [stopReasonMatches()], maxCostUsd: 0.05 });
    expect(report.stop).toBe('budget_exhausted');
    expect(report.cases.map((entry) => entry.status)).toEqual(['evaluated', 'evaluated', 'skipped']);
    // The second case ran within what was left: it stopped on that budget.
    expect(report.cases[1]!.candidate?.stop.reason).toBe('budget_exhausted');
    expect(report.totals.candidateCostUsd).toBeLessThanOrEqual(0.06);
  });

  it('refuses unknown or unfinished runs and bad options before running anything, naming each', async () => {
    const store = memoryStore();
    const kernel = createKernel({ model: scriptedModel(() => ({ text: 'x' })), store });
    const bad: EvalScorer = { name: 'stopReasonMatches', score: () => 1 };
    await expect(kernel.evaluate([{ runId: 'nope' }], { suite: 'bad suite', scorers: [stopReasonMatches(), bad] })).rejects.toSatisfy(
      (error: unknown) =>
        isDualloopError(error, 'config_invalid') &&
        JSON.stringify(error.issues.map((issue) => issue.path)) === '["suite","scorers"]' &&
        error.issues[1]!.message === 'two scorers are named "stopReasonMatches": give one a name of its own',
    );
    await expect(kernel.evaluate([{ runId: 'nope' }, { tasks: [] }], { suite: 'ok', scorers: [] })).rejects.toSatisfy(
      (error: unknown) =>
        isDualloopError(error, 'config_invalid') &&
        JSON.stringify((error as { issues: unknown }).issues) === JSON.stringify([
          { path: 'cases.0.runId', message: 'no run "nope" in the memory store' },
          { path: 'cases.1.tasks', message: 'must be a non-empty list of tasks' },
        ]),
    );
  });
});
