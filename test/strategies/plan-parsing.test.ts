import { describe, expect, it } from 'vitest';
import { runWorkflow } from 'dualloop';
import { scriptedModel } from 'dualloop/testing';

/** Runs plan_execute with a planner that replies `reply`, and executor answers for every step. */
async function planFrom(reply: string) {
  const planner = scriptedModel([{ text: reply }]);
  const model = scriptedModel(({ index }) => ({ text: `step ${index + 1} done` }));
  return runWorkflow({ model, planner, strategy: 'plan_execute', tasks: ['the goal'] });
}

describe('plan parsing', () => {
  it.each([
    ['a fenced JSON block', 'Here is the plan:\n```json\n{"steps": ["alpha", "beta"]}\n```\nGood luck.'],
    ['a fenced block without a language', '```\n{"steps": ["alpha", "beta"]}\n```'],
    ['bare JSON', '{"steps": ["alpha", "beta"]}'],
    ['bare JSON inside prose', 'Plan: {"steps": [{"description": "alpha"}, {"description": "beta", "tool": "search"}]} — that is all.'],
    ['a bare JSON array', '  ["alpha", "beta"]  '],
    ['a numbered list (fallback)', 'I would do this:\n1. alpha\n2) beta\n\nThen stop.'],
  ])('accepts %s', async (_, reply) => {
    const result = await planFrom(reply);
    expect(result.stop.reason).toBe('goal_achieved');
    expect(result.tasks.map((task) => task.description)).toEqual(['alpha', 'beta']);
  });

  it.each([
    ['prose without a plan', 'I think we should just get started.', /^the planner's plan is unusable: no plan found in the reply: expected JSON .* or a numbered list; got "I think we should just get started\."$/],
    ['invalid JSON in a fenced block', '```json\n{"steps": ["alpha",]}\n```', /^the planner's plan is unusable: the fenced JSON block is not valid JSON \(/],
    ['JSON of the wrong shape', '{"plan": "alpha then beta"}', /^the planner's plan is unusable: the plan has no "steps"$/],
    ['a step that is not text', '{"steps": ["alpha", 42]}', /^the planner's plan is unusable: the JSON reply is not a plan \(steps\.1: a step must be text or \{"description": "…"\}\)/],
    ['an empty plan', '{"steps": []}', /^the planner's plan is unusable: the plan has 0 steps; at least 1 required$/],
    ['broken bare JSON', '{"steps": ["alpha"', /^the planner's plan is unusable: the reply looks like JSON but is not valid JSON/],
    ['an empty reply', '', /got an empty reply$/],
  ])('ends the workflow error for %s, naming the problem', async (_, reply, detail) => {
    const result = await planFrom(reply);
    expect(result.stop.reason).toBe('error');
    expect(result.stop.detail).toMatch(detail);
    expect(result.tasks).toEqual([]);
  });
});
