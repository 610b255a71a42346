import { describe, expect, it } from 'vitest';
import { createKernel, memoryStore, readCheckpoint, runWorkflow } from 'dualloop';
import { collectRun, scriptedModel } from 'dualloop/testing';
import { eventsOfType } from '../support/kernel-fixtures.js';

const plan = (...steps: string[]) => ({ text: `\`\`\`json\n${JSON.stringify({ steps })}\n\`\`\`` });

describe('plan_execute', () => {
  it('plans the goal once, then runs each step as one task of the inner loop', async () => {
    const planner = scriptedModel([plan('gather the facts', 'write the report')], { modelId: 'planner' });
    const model = scriptedModel([{ text: 'facts: a, b' }, { text: 'report written' }]);
    const { events, result } = await collectRun(createKernel({ model, planner, strategy: 'plan_execute' }).start(['Write a report on a and b']));

    expect(result.stop.reason).toBe('goal_achieved');
    expect(result.tasks.map((task) => [task.taskId, task.description, task.stop.reason])).toEqual([
      ['plan-1-step-1', 'gather the facts', 'planner_stopped'],
      ['plan-1-step-2', 'write the report', 'planner_stopped'],
    ]);
    expect(eventsOfType(events, 'plan_created')).toMatchObject([{ strategy: 'plan_execute', version: 1, steps: [{ description: 'gather the facts' }, { description: 'write the report' }] }]);
    // The planner call is a turn of the workflow; the step tasks count their own.
    expect(result.metrics).toMatchObject({ workflowSteps: 2, turns: 3 });
    // The executor sees the goal, what is done, and its own step.
    const second = model.calls[1]!.messages.find((message) => message.role === 'user')!.content;
    expect(second).toContain('Write a report on a and b');
    expect(second).toContain('gather the facts');
    expect(second).toContain('facts: a, b');
    expect(second).toContain('Your step (2 of 2): write the report');
  });

  it('planner and executor are different models, each called for its own part only', async () => {
    const planner = scriptedModel([plan('one', 'two')], { modelId: 'big-planner' });
    const model = scriptedModel([{ text: 'did one' }, { text: 'did two' }], { modelId: 'small-executor' });
    const result = await runWorkflow({ model, planner, strategy: 'plan_execute', tasks: ['do one and two'] });

    expect(result.stop.reason).toBe('goal_achieved');
    expect(planner.calls).toHaveLength(1);
    expect(planner.calls[0]!.tools).toEqual([]);
    expect(planner.calls[0]!.messages.map((message) => message.role)).toEqual(['system', 'user']);
    expect(planner.calls[0]!.messages[1]!.content).toContain('do one and two');
    expect(model.calls).toHaveLength(2);
    expect(model.calls.every((call) => !call.messages.some((message) => message.content.includes('You are the planner')))).toBe(true);
    // Each model counts its own calls (`callIndex`).
    expect(planner.calls.map((call) => call.index)).toEqual([0]);
    expect(model.calls.map((call) => call.index)).toEqual([0, 1]);
  });

  it('a planner that is the executor model continues its call index', async () => {
    const model = scriptedModel([plan('only step'), { text: 'done' }]);
    const result = await runWorkflow({ model, strategy: 'plan_execute', tasks: ['the goal'] });

    expect(result.stop.reason).toBe('goal_achieved');
    expect(model.calls.map((call) => call.index)).toEqual([0, 1]);
    expect(result.tasks.map((task) => task.output)).toEqual(['done']);
  });

  it('a step that fails once, then succeeds after one replan: completes, one replan used, two plans stored', async () => {
    const store = memoryStore();
    const planner = scriptedModel([plan('fetch the data', 'summarize'), plan('fetch the data from the mirror', 'summarize')], { modelId: 'planner' });
    const model = scriptedModel([{ error: 'upstream 503' }, { text: 'fetched from mirror' }, { text: 'summary' }]);
    const { events, result } = await collectRun(createKernel({ model, planner, store, strategy: 'plan_execute' }).start(['Summarize the data'], { runId: 'replan-once' }));

    expect(result.stop.reason).toBe('goal_achieved');
    expect(result.tasks.map((task) => [task.taskId, task.stop.reason])).toEqual([
      ['plan-1-step-1', 'error'],
      ['plan-2-step-1', 'planner_stopped'],
      ['plan-2-step-2', 'planner_stopped'],
    ]);
    const revised = eventsOfType(events, 'plan_revised');
    expect(revised).toHaveLength(1);
    expect(revised[0]).toMatchObject({ trigger: 'step_failed', replansUsed: 1, version: 2, steps: [{ description: 'fetch the data from the mirror' }, { description: 'summarize' }] });
    expect(revised[0]!.reason).toContain('upstream 503');
    // The replan saw what failed.
    expect(planner.calls[1]!.messages[1]!.content).toContain('Failed step: fetch the data');

    const stored = await store.readEvents('replan-once');
    expect(stored.filter((event) => event.type === 'plan_created' || event.type === 'plan_revised').map((event) => event.type)).toEqual(['plan_created', 'plan_revised']);
    const audit = await store.audit('replan-once');
    expect(audit!.plans.map((entry) => [entry.kind, entry.steps])).toEqual([
      ['created', ['fetch the data', 'summarize']],
      ['revised', ['fetch the data from the mirror', 'summarize']],
    ]);
    const checkpoint = (await readCheckpoint(store, 'replan-once')) as unknown as { progress: { strategy: { plan: { replansUsed: number; version: number } } } };
    expect(checkpoint.progress.strategy.plan).toMatchObject({ replansUsed: 1, version: 2 });
  });

  it('maxReplans: 0 with a failing step ends max_replans', async () => {
    const planner = scriptedModel([plan('fragile step', 'next step')]);
    const model = scriptedModel([{ error: 'tool backend down' }]);
    const result = await runWorkflow({ model, planner, strategy: 'plan_execute', tasks: ['goal'], bounds: { outer: { maxReplans: 0 } } });

    expect(result.stop.reason).toBe('max_replans');
    expect(result.stop.bound).toEqual({ name: 'maxReplans', limit: 0, value: 0 });
    expect(result.stop.detail).toContain('fragile step');
    expect(planner.calls).toHaveLength(1);
    expect(result.tasks).toHaveLength(1);
  });

  it('a step that keeps failing ends max_replans once the replans are used', async () => {
    const planner = scriptedModel([plan('step'), plan('step again'), plan('step once more')]);
    const model = scriptedModel(() => ({ error: 'always down' }));
    const result = await runWorkflow({ model, planner, strategy: 'plan_execute', tasks: ['goal'], bounds: { outer: { maxReplans: 2 } } });

    expect(result.stop.reason).toBe('max_replans');
    expect(result.stop.bound).toEqual({ name: 'maxReplans', limit: 2, value: 2 });
    expect(planner.calls).toHaveLength(3);
    expect(result.tasks.map((task) => task.stop.reason)).toEqual(['error', 'error', 'error']);
  });

  it('planning counts against the shared turn budget: maxTurns 2 stops before step 2 with max_turns', async () => {
    const planner = scriptedModel([plan('step one', 'step two')]);
    const model = scriptedModel([{ text: 'one done' }, { text: 'two done' }]);
    const result = await runWorkflow({ model, planner, strategy: 'plan_execute', tasks: ['goal'], bounds: { inner: { maxTurns: 2 } } });

    expect(result.stop.reason).toBe('max_turns');
    expect(result.stop.bound).toEqual({ name: 'maxTurns', limit: 2, value: 2 });
    expect(result.stop.detail).toContain('step two');
    expect(result.tasks.map((task) => task.description)).toEqual(['step one']);
    expect(model.calls).toHaveLength(1);
    expect(result.metrics.turns).toBe(2);
  });

  it('each step gets the turns left in the shared budget; a step that spends them stops the workflow max_turns', async () => {
    const planner = scriptedModel([plan('long step', 'never reached')]);
    const model = scriptedModel(({ index }) => ({ toolCalls: [{ name: 'missing', args: { at: index } }] }));
    const result = await runWorkflow({ model, planner, strategy: 'plan_execute', tasks: ['goal'], bounds: { inner: { maxTurns: 4 } } });

    expect(result.stop.reason).toBe('max_turns');
    expect(result.stop.bound).toEqual({ name: 'maxTurns', limit: 4, value: 4 });
    expect(result.tasks).toHaveLength(1);
    expect(result.tasks[0]!.turnCount).toBe(3);
    expect(planner.calls).toHaveLength(1);
  });

  it('planning tokens count against the token budget', async () => {
    const planner = scriptedModel([{ ...plan('a', 'b'), usage: { inputTokens: 80, outputTokens: 20 } }]);
    const model = scriptedModel([{ text: 'a done', usage: { inputTokens: 10, outputTokens: 5 } }, { text: 'b done' }]);
    const result = await runWorkflow({ model, planner, strategy: 'plan_execute', tasks: ['goal'], bounds: { outer: { maxTokens: 110 } } });

    expect(result.stop.reason).toBe('budget_exhausted');
    expect(result.metrics).toMatchObject({ inputTokens: 90, outputTokens: 25 });
    expect(result.tasks).toHaveLength(1);
  });

  it('run.abort() during planning aborts the planner call and ends context_canceled', async () => {
    const planner = scriptedModel([{ ...plan('never'), delayMs: 60_000 }]);
    const model = scriptedModel([]);
    const run = createKernel({ model, planner, strategy: 'plan_execute' }).start(['goal']);
    run.abort('changed my mind');
    const result = await run.result;

    expect(result.stop).toMatchObject({ reason: 'context_canceled', detail: 'changed my mind' });
    expect(planner.calls).toHaveLength(1);
    expect(model.calls).toHaveLength(0);
  });

  it('a planner failure ends the workflow error, naming it', async () => {
    const planner = scriptedModel([{ error: { code: 'rate_limited', message: 'slow down' } }]);
    const model = scriptedModel([]);
    const { events, result } = await collectRun(createKernel({ model, planner, strategy: 'plan_execute' }).start(['goal']));

    expect(result.stop.reason).toBe('error');
    expect(result.stop.detail).toBe('planner call failed (rate_limited): slow down');
    expect(eventsOfType(events, 'error')).toMatchObject([{ scope: 'model', message: 'planner call failed (rate_limited): slow down' }]);
    expect(result.metrics.turns).toBe(1);
    expect(model.calls).toHaveLength(0);
  });
});
