/**
 * The built-in scorers on real runs: each one's score and reason, the judge's own budget, and a
 * scorer that breaks the [0, 1] contract scoring 0 with the reason.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { costWithin, createKernel, defineTool, judge, memoryStore, outputEquals, outputMatchesSchema, stopReasonMatches, toolTrajectoryMatches, turnsWithin, type EvalRun, type EvalScorer } from 'dualloop';
import { scriptedModel, type ScriptStep } from 'dualloop/testing';

const noop = (name: string) => defineTool({ name, description: `The ${name} tool.`, parameters: z.object({}), execute: () => 'ok' });

/** A run whose model calls `tools` one per turn, then answers `text`; each call costs `costUsd`. */
async function runOf(runId: string, steps: { tools?: readonly string[]; text: string; costUsd?: number; maxTurns?: number }): Promise<EvalRun> {
  const tools = steps.tools ?? [];
  const model = scriptedModel((call): ScriptStep => {
    const index = call.turn! - 1;
    const cost = steps.costUsd ?? 0.01;
    return index < tools.length ? { toolCalls: [{ name: tools[index]!, args: {} }], costUsd: cost } : { text: steps.text, costUsd: cost };
  });
  const kernel = createKernel({ model, tools: ['search', 'fetch', 'write'].map(noop), store: memoryStore(), ...(steps.maxTurns === undefined ? {} : { bounds: { inner: { maxTurns: steps.maxTurns } } }) });
  return { runId, result: await kernel.start(['Do it'], { runId }).result };
}

const verdict = async (scorer: EvalScorer, candidate: EvalRun, baseline?: EvalRun, expected?: unknown) => scorer.score(candidate, baseline, expected);

describe('built-in scorers', () => {
  it('stopReasonMatches: the baseline stop reason, or expected.stop', async () => {
    const done = await runOf('a', { text: 'x' });
    const cut = await runOf('b', { tools: ['search', 'search', 'search'], text: 'x', maxTurns: 2 });
    expect(cut.result.stop.reason).toBe('max_turns');
    expect(await verdict(stopReasonMatches(), done, done)).toEqual({ score: 1, reason: 'both goal_achieved' });
    expect(await verdict(stopReasonMatches(), cut, done)).toEqual({ score: 0, reason: 'max_turns, expected goal_achieved' });
    expect(await verdict(stopReasonMatches(), cut, done, { stop: 'max_turns' })).toMatchObject({ score: 1 });
  });

  it('outputEquals: deep equality, key order aside, against expected or the baseline', async () => {
    const json = await runOf('a', { text: '{"b":1,"a":[1,2]}' });
    const other = await runOf('b', { text: 'no' });
    expect(await verdict(outputEquals(), json, other)).toEqual({ score: 0, reason: 'got "{\\"b\\":1,\\"a\\":[1,2]}", expected "no"' });
    expect(await verdict(outputEquals(), json, undefined, '{"b":1,"a":[1,2]}')).toMatchObject({ score: 1 });
    expect(await verdict(outputEquals(), json, undefined)).toEqual({ score: 0, reason: 'the case has no baseline or expected output' });
  });

  it('outputMatchesSchema: text parsed as JSON, checked against a zod or JSON Schema', async () => {
    const good = await runOf('a', { text: '{"city":"Paris","population":2100000}' });
    const bad = await runOf('b', { text: '{"city":7}' });
    const prose = await runOf('c', { text: 'Paris' });
    const schema = z.object({ city: z.string(), population: z.number() });
    expect(await verdict(outputMatchesSchema(schema), good)).toEqual({ score: 1, reason: 'matches' });
    const failed = await verdict(outputMatchesSchema({ type: 'object', required: ['city'], properties: { city: { type: 'string' } } }), bad);
    expect(failed).toMatchObject({ score: 0 });
    expect((failed as { reason: string }).reason).toContain('city');
    expect(await verdict(outputMatchesSchema(schema), prose)).toEqual({ score: 0, reason: 'the output is text that is not JSON' });
    expect(() => outputMatchesSchema(42)).toThrow(/Invalid outputMatchesSchema scorer/);
  });

  it('toolTrajectoryMatches: tool names in order, partial credit by edit distance, a tolerance of edits', async () => {
    const baseline = await runOf('a', { tools: ['search', 'fetch', 'write'], text: 'x' });
    const same = await runOf('b', { tools: ['search', 'fetch', 'write'], text: 'y' });
    const skipped = await runOf('c', { tools: ['search', 'write'], text: 'x' });
    expect(await verdict(toolTrajectoryMatches(), same, baseline)).toEqual({ score: 1, reason: 'search → fetch → write vs search → fetch → write: 0 edits' });
    expect(await verdict(toolTrajectoryMatches(), skipped, baseline)).toEqual({ score: 1 - 1 / 3, reason: 'search → write vs search → fetch → write: 1 edit' });
    expect(await verdict(toolTrajectoryMatches({ tolerance: 1 }), skipped, baseline)).toMatchObject({ score: 1 });
    expect(await verdict(toolTrajectoryMatches(), skipped, undefined)).toEqual({ score: 0, reason: 'the case has no baseline' });
  });

  it('costWithin and turnsWithin: 1 within the ratio, else the fraction of the allowance', async () => {
    const baseline = await runOf('a', { tools: ['search'], text: 'x', costUsd: 0.01 });
    const dearer = await runOf('b', { tools: ['search', 'fetch', 'write'], text: 'x', costUsd: 0.01 });
    expect(await verdict(costWithin(1), dearer, baseline)).toEqual({ score: 0.5, reason: '$0.040000 against $0.020000 × 1' });
    expect(await verdict(costWithin(2), dearer, baseline)).toMatchObject({ score: 1 });
    expect(await verdict(costWithin(2), baseline, dearer)).toMatchObject({ score: 1 });
    expect(await verdict(turnsWithin(1.5), dearer, baseline)).toEqual({ score: 0.75, reason: '4 turns against 2 turns × 1.5' });
    expect(() => turnsWithin(0)).toThrow(/Invalid turnsWithin scorer/);
  });

  it('judge: one call per case with the rubric and both outputs; its own budget; a missing score is 0', async () => {
    const seen: string[] = [];
    const answers = ['SCORE: 0.8 — close, but the population is rounded', 'I like it', 'SCORE: 1 — exact'];
    const model = scriptedModel((call): ScriptStep => (seen.push(String(call.messages.at(-1)?.content)), { text: answers[seen.length - 1]!, costUsd: 0.5 }));
    const scorer = judge({ model, rubric: 'Names the capital and its population.', maxCostUsd: 1 });
    const candidate = await runOf('a', { text: 'Paris, about 2 million' });
    const baseline = await runOf('b', { text: 'Paris, 2,102,650 people' });
    expect(await verdict(scorer, candidate, baseline, 'Paris')).toEqual({ score: 0.8, reason: 'close, but the population is rounded' });
    expect(seen[0]).toContain('RUBRIC:\nNames the capital and its population.');
    expect(seen[0]).toContain('EXPECTED:\nParis');
    expect(seen[0]).toContain('BASELINE output:\nParis, 2,102,650 people');
    expect(seen[0]).toContain('CANDIDATE output:\nParis, about 2 million');
    expect(await verdict(scorer, candidate, baseline)).toEqual({ score: 0, reason: 'the judge gave no score: I like it' });
    // $1 spent on two calls: the third case is not judged.
    expect(await verdict(scorer, candidate, baseline)).toEqual({ score: 0, reason: "the judge's budget is spent ($1.000000 of $1)" });
    expect(seen).toHaveLength(2);
    expect(scorer.spentUsd()).toBe(1);
  });

  it('a scorer that answers outside [0, 1] or throws scores 0 with the reason in the report', async () => {
    const kernel = createKernel({ model: scriptedModel(() => ({ text: 'x' })) });
    const report = await kernel.evaluate([{ tasks: ['Do it'] }], {
      suite: 'contract',
      scorers: [
        { name: 'tooHigh', score: () => 2 },
        { name: 'throws', score: () => { throw new Error('boom'); } },
        { name: 'async', score: async () => ({ score: 0.25, reason: 'a quarter' }) },
      ],
    });
    expect(report.cases[0]!.scores).toEqual([
      { scorer: 'tooHigh', score: 0, reason: 'the scorer answered 2, not a number in [0, 1]' },
      { scorer: 'throws', score: 0, reason: 'the scorer threw: boom' },
      { scorer: 'async', score: 0.25, reason: 'a quarter' },
    ]);
    expect(report.means).toEqual({ tooHigh: 0, throws: 0, async: 0.25 });
  });
});
