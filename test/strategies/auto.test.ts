import { describe, expect, it } from 'vitest';
import { createKernel, memoryStore } from 'dualloop';
import { collectRun, scriptedModel } from 'dualloop/testing';
import { eventsOfType } from '../support/kernel-fixtures.js';

const plan = (...steps: string[]) => ({ text: `\`\`\`json\n${JSON.stringify({ steps })}\n\`\`\`` });

describe('auto', () => {
  it('picks react for a one-task workflow, says why, and keeps the choice in the store', async () => {
    const store = memoryStore();
    const planner = scriptedModel([]);
    const model = scriptedModel([{ text: 'done' }]);
    const { events, result } = await collectRun(createKernel({ model, planner, store, strategy: 'auto' }).start(['Rename the file'], { runId: 'auto-react' }));

    expect(result.stop.reason).toBe('goal_achieved');
    expect(result.tasks.map((task) => task.taskId)).toEqual(['task-1']);
    expect(planner.calls).toHaveLength(0);
    const [selected] = eventsOfType(events, 'strategy_selected');
    expect(selected).toMatchObject({ strategy: 'react', by: 'rules' });
    expect(selected!.reason).toBe('1 task (maxTasksForReact=3) and a goal of 15 characters (under longGoalChars=500)');
    // The choice comes before the first task, and is kept with the run's events.
    expect(events.findIndex((event) => event.type === 'strategy_selected')).toBeLessThan(events.findIndex((event) => event.type === 'task_start'));
    expect((await store.readEvents('auto-react')).filter((event) => event.type === 'strategy_selected')).toHaveLength(1);
    expect((await store.audit('auto-react'))?.strategy).toMatchObject({ name: 'react', by: 'rules', reason: selected!.reason });
  });

  it('puts the choice in the audit of the SQLite store too', async () => {
    const { mkdtempSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { sqliteStore } = await import('dualloop');
    const store = sqliteStore({ path: join(mkdtempSync(join(tmpdir(), 'dualloop-auto-')), 'runs.db') });
    await createKernel({ model: scriptedModel([{ text: 'done' }]), store, strategy: 'auto' }).start(['one'], { runId: 'auto-sqlite' }).result;
    expect((await store.audit('auto-sqlite'))?.strategy).toMatchObject({ name: 'react', by: 'rules' });
    store.close();
  });

  it('picks hybrid for a long goal', async () => {
    const goal = `Migrate the service to the new API. ${'Keep every endpoint working and document each change. '.repeat(10)}`;
    const planner = scriptedModel([plan('inventory endpoints', 'migrate them', 'document'), { text: '{"keep": true}' }, { text: '{"keep": true}' }]);
    const model = scriptedModel(({ index }) => ({ text: `answer ${index}` }));
    const { events, result } = await collectRun(createKernel({ model, planner, strategy: 'auto', goal }).start());

    expect(eventsOfType(events, 'strategy_selected')).toMatchObject([{ strategy: 'hybrid', by: 'rules', reason: `the goal has ${goal.length} characters, at least longGoalChars=500` }]);
    expect(eventsOfType(events, 'plan_created')).toMatchObject([{ strategy: 'hybrid', version: 1 }]);
    expect(result.stop.reason).toBe('goal_achieved');
    expect(result.tasks).toHaveLength(3);
    expect(planner.calls[0]!.messages[1]!.content).toContain(goal.trim());
  });

  it('picks plan_execute for more tasks than maxTasksForReact', async () => {
    const planner = scriptedModel([plan('first', 'second')]);
    const model = scriptedModel([{ text: 'one' }, { text: 'two' }]);
    const { events, result } = await collectRun(
      createKernel({ model, planner, strategy: 'auto', autoRules: { maxTasksForReact: 1 } }).start(['read the logs', 'find the error']),
    );

    expect(eventsOfType(events, 'strategy_selected')).toMatchObject([{ strategy: 'plan_execute', reason: '2 tasks, more than maxTasksForReact=1' }]);
    expect(result.stop.reason).toBe('goal_achieved');
    // The goal the planner sees is the tasks, numbered.
    expect(planner.calls[0]!.messages[1]!.content).toContain('1. read the logs\n2. find the error');
  });

  it('asks the planner to classify when `classify: true`; the planner continues its call count', async () => {
    const planner = scriptedModel([{ text: 'This needs plan_execute.' }, plan('only step')], { modelId: 'planner' });
    const model = scriptedModel([{ text: 'done' }]);
    const { events, result } = await collectRun(createKernel({ model, planner, strategy: 'auto', autoRules: { classify: true } }).start(['short']));

    expect(eventsOfType(events, 'strategy_selected')).toMatchObject([{ strategy: 'plan_execute', by: 'classifier', reason: 'the classifier answered plan_execute' }]);
    expect(planner.calls.map((call) => call.index)).toEqual([0, 1]);
    expect(result.stop.reason).toBe('goal_achieved');
    // Classification and planning are turns of the workflow.
    expect(result.metrics.turns).toBe(3);
  });

  it('falls back to the rules when the classifier fails, and says so', async () => {
    const classifier = scriptedModel([{ error: 'classifier offline' }]);
    const model = scriptedModel([{ text: 'done' }]);
    const { events, result } = await collectRun(createKernel({ model, strategy: 'auto', autoRules: { classify: classifier } }).start(['short']));

    const [selected] = eventsOfType(events, 'strategy_selected');
    expect(selected).toMatchObject({ strategy: 'react', by: 'rules' });
    expect(selected!.reason).toMatch(/^classifier call failed \(scripted_error\): classifier offline; 1 task/);
    expect(result.stop.reason).toBe('goal_achieved');
    expect(classifier.calls).toHaveLength(1);
  });
});
