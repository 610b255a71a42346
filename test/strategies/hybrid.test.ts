import { describe, expect, it } from 'vitest';
import { createKernel, memoryStore, readCheckpoint, runWorkflow } from 'dualloop';
import { collectRun, scriptedModel } from 'dualloop/testing';
import { eventsOfType } from '../support/kernel-fixtures.js';

const json = (value: unknown) => ({ text: `\`\`\`json\n${JSON.stringify(value)}\n\`\`\`` });

describe('hybrid', () => {
  it('runs each step as a ReAct loop; after each step the planner summarizes and may revise the rest', async () => {
    const store = memoryStore();
    const planner = scriptedModel(
      [
        json({ steps: ['survey the code', 'find the bug', 'write the fix'] }),
        json({ summary: 'the code is a parser in three files', keep: true }),
        json({ summary: 'the bug is an off-by-one', steps: ['write the fix', 'add a regression test'], reason: 'a test is needed too' }),
        json({ summary: 'fix written', keep: true }),
      ],
      { modelId: 'planner' },
    );
    const model = scriptedModel([{ text: 'surveyed' }, { text: 'found it' }, { text: 'fixed' }, { text: 'tested' }]);
    const run = createKernel({ model, planner, store, strategy: 'hybrid' }).start(['Fix the parser bug'], { runId: 'hybrid-run' });
    const { events, result } = await collectRun(run);

    expect(result.stop.reason).toBe('goal_achieved');
    expect(result.tasks.map((task) => [task.taskId, task.description])).toEqual([
      ['plan-1-step-1', 'survey the code'],
      ['plan-1-step-2', 'find the bug'],
      ['plan-2-step-1', 'write the fix'],
      ['plan-2-step-2', 'add a regression test'],
    ]);
    // Plan, then a review after each step that still has steps after it.
    expect(planner.calls).toHaveLength(4);
    expect(eventsOfType(events, 'plan_revised')).toMatchObject([
      { strategy: 'hybrid', trigger: 'review', reason: 'a test is needed too', replansUsed: 0, version: 2, steps: [{ description: 'write the fix' }, { description: 'add a regression test' }] },
    ]);
    // Planning and reviews count as turns of the workflow.
    expect(result.metrics.turns).toBe(8);

    // The executor sees the whole plan and the progress summaries.
    const third = model.calls[2]!.messages.find((message) => message.role === 'user')!.content;
    expect(third).toContain('the code is a parser in three files');
    expect(third).toContain('the bug is an off-by-one');
    expect(third).toContain('1. [now] write the fix');

    // The last checkpoint (after the last step ran) holds the progress summary of every step before it.
    const checkpoint = (await readCheckpoint(store, 'hybrid-run')) as unknown as { progress: { strategy: { plan: { done: { summary: string }[] } } } };
    expect(checkpoint.progress.strategy.plan.done.map((step) => step.summary)).toEqual([
      'the code is a parser in three files',
      'the bug is an off-by-one',
      'fix written',
    ]);
  });

  it('needs a plan of 3 to 7 steps', async () => {
    const planner = scriptedModel([json({ steps: ['only', 'two'] })]);
    const result = await runWorkflow({ model: scriptedModel([]), planner, strategy: 'hybrid', tasks: ['goal'] });

    expect(result.stop.reason).toBe('error');
    expect(result.stop.detail).toBe("the planner's plan is unusable: the plan has 2 steps; 3–7 required");
  });

  it('replans a failed step like plan_execute', async () => {
    const planner = scriptedModel([
      json({ steps: ['a', 'b', 'c'] }),
      json({ keep: true }),
      json({ steps: ['b by another route', 'c'] }),
      json({ keep: true }),
    ]);
    const model = scriptedModel([{ text: 'a done' }, { error: 'b broke' }, { text: 'b done' }, { text: 'c done' }]);
    const { events, result } = await collectRun(createKernel({ model, planner, strategy: 'hybrid' }).start(['goal']));

    expect(result.stop.reason).toBe('goal_achieved');
    expect(result.tasks.map((task) => task.stop.reason)).toEqual(['planner_stopped', 'error', 'planner_stopped', 'planner_stopped']);
    expect(eventsOfType(events, 'plan_revised').map((event) => [event.trigger, event.replansUsed])).toEqual([['step_failed', 1]]);
  });

  it('skips the review when the shared budget has room for the next step only', async () => {
    const planner = scriptedModel([json({ steps: ['a', 'b', 'c'] }), json({ keep: true })]);
    const model = scriptedModel([{ text: 'a done' }, { text: 'b done' }, { text: 'c done' }]);
    const result = await runWorkflow({ model, planner, strategy: 'hybrid', tasks: ['goal'], bounds: { inner: { maxTurns: 5 } } });

    // plan (1) + a (2) + review (3) + b (4) + c (5): no room for a second review.
    expect(result.stop.reason).toBe('goal_achieved');
    expect(planner.calls).toHaveLength(2);
    expect(result.metrics.turns).toBe(5);
  });
});
