import { describe, expect, it } from 'vitest';
import { main as autoExample } from '../../examples/strategies/auto.js';
import { main as planExecuteExample } from '../../examples/strategies/plan-execute.js';

describe('strategy examples', () => {
  it('plan-execute: fails a step, replans once, completes', async () => {
    const lines: string[] = [];
    await planExecuteExample((line) => lines.push(line));
    expect(lines).toEqual([
      'plan v1: Fetch the release notes from docs.example.com → Summarize them in one sentence',
      'plan v2 (step_failed, replans used 1): Fetch the release notes from mirror.example.com → Summarize them in one sentence',
      'plan-1-step-1: error — model failure: scripted_error: the page could not be fetched',
      'plan-2-step-1: planner_stopped — Release 2.0: faster resume, plan strategies.',
      'plan-2-step-2: planner_stopped — Release 2.0 makes resume faster and adds plan strategies.',
      'stop: goal_achieved (the plan is done: 2 of 3 steps completed (plan version 2, 1 replan))',
      'turns: 7 (planner calls included); planner calls: 2, executor calls: 5',
      'audit plans: created, revised',
    ]);
  });

  it('auto: react for one short task, hybrid for a long goal', async () => {
    const lines: string[] = [];
    await autoExample((line) => lines.push(line));
    expect(lines[0]).toMatch(/^one short task: react — /);
    expect(lines[2]).toMatch(/^a long goal: hybrid — the goal has \d+ characters, at least longGoalChars=400$/);
    expect(lines[3]).toBe('  3 task(s), stop: goal_achieved');
  });
});
