import { describe, expect, it } from 'vitest';
import { createKernel, memoryStore, readCheckpoint, type KernelEvent } from 'dualloop';
import { collectRun, scriptedModel, type ScriptStep } from 'dualloop/testing';
import { countingTool, waitForEvent } from '../support/kernel-fixtures.js';

const plan = (...steps: string[]) => ({ text: `\`\`\`json\n${JSON.stringify({ steps })}\n\`\`\`` });
const hang: ScriptStep = { text: 'too slow', delayMs: 60_000 };

/** A scripted executor whose call at `hangAt` hangs the first time only (until the run is aborted). */
function executor(steps: readonly ScriptStep[], hangAt: number) {
  let hung = false;
  return scriptedModel(({ index }) => {
    if (index === hangAt && !hung) {
      hung = true;
      return hang;
    }
    return steps[index] ?? { error: `no step ${index}` };
  });
}

const countOf = (events: readonly KernelEvent[], type: KernelEvent['type']) => events.filter((event) => event.type === type).length;

describe('plan strategies resume', () => {
  it('a resumed run continues its plan: no replanning from scratch, the planner call index survives', async () => {
    const store = memoryStore();
    const plannerScript = [plan('fetch', 'summarize'), plan('fetch from the mirror', 'summarize'), plan('summarize in parts')];
    const executorScript: ScriptStep[] = [{ error: 'source down' }, { text: 'fetched' }, { error: 'summarizer crashed' }, { text: 'summarized' }];

    const first = createKernel({ model: executor(executorScript, 2), planner: scriptedModel(plannerScript), store, strategy: 'plan_execute' });
    const run = first.start(['Summarize the source'], { runId: 'plan-resume' });
    await waitForEvent(run, (event) => event.type === 'message_start' && event.taskId === 'plan-2-step-2');
    run.abort('operator stop');
    expect((await run.result).stop.reason).toBe('context_canceled');

    // A new process: fresh models from the same scripts.
    const planner = scriptedModel(plannerScript);
    const model = executor(executorScript, -1);
    const second = createKernel({ model, planner, store, strategy: 'plan_execute' });
    const { events, result } = await collectRun(await second.resume('plan-resume'));

    expect(result.stop.reason).toBe('goal_achieved');
    expect(result.tasks.map((task) => [task.taskId, task.stop.reason])).toEqual([
      ['plan-1-step-1', 'error'],
      ['plan-2-step-1', 'planner_stopped'],
      ['plan-2-step-2', 'error'],
      ['plan-3-step-1', 'planner_stopped'],
    ]);
    // Only the replan after the resumed step failed, at the planner's next index.
    expect(planner.calls.map((call) => call.index)).toEqual([2]);
    expect(model.calls.map((call) => call.index)).toEqual([2, 3]);
    expect(countOf(events, 'plan_created')).toBe(0);
    const stored = await store.readEvents('plan-resume');
    expect([countOf(stored, 'plan_created'), countOf(stored, 'plan_revised')]).toEqual([1, 2]);
    // The three planner calls are turns of the workflow: 3 planning + 4 step turns.
    expect(result.metrics.turns).toBe(7);
  });

  it('the plan is checkpointed as soon as it is made, before its first step runs', async () => {
    const store = memoryStore();
    const run = createKernel({ model: executor([], 0), planner: scriptedModel([plan('a', 'b')]), store, strategy: 'plan_execute' }).start(['goal'], { runId: 'planned' });
    await waitForEvent(run, (event) => event.type === 'message_start');

    const checkpoint = (await readCheckpoint(store, 'planned')) as unknown as { kind: string; progress: { active?: unknown; metrics: { turns: number }; strategy: unknown } };
    expect(checkpoint.kind).toBe('select');
    expect(checkpoint.progress.active).toBeUndefined();
    expect(checkpoint.progress.metrics.turns).toBe(1);
    expect(checkpoint.progress.strategy).toMatchObject({
      plannerCalls: 1,
      plan: { version: 1, steps: [{ description: 'a' }, { description: 'b' }], cursor: 0, current: 'plan-1-step-1', replansUsed: 0 },
    });
    run.abort();
    await run.result;
  });

  it('auto keeps its choice on resume: no second classification', async () => {
    const store = memoryStore();
    const first = createKernel({ model: executor([{ text: 'one' }, { text: 'two' }], 1), planner: scriptedModel([{ text: 'react' }]), store, strategy: 'auto', autoRules: { classify: true } });
    const run = first.start(['one', 'two'], { runId: 'auto-resume' });
    await waitForEvent(run, (event) => event.type === 'message_start' && event.taskId === 'task-2');
    run.abort();
    await run.result;

    const planner = scriptedModel([]);
    const second = createKernel({ model: executor([{ text: 'one' }, { text: 'two' }], -1), planner, store, strategy: 'auto', autoRules: { classify: true } });
    const { events, result } = await collectRun(await second.resume('auto-resume'));

    expect(result.stop.reason).toBe('goal_achieved');
    expect(result.tasks.map((task) => task.output)).toEqual(['one', 'two']);
    expect(planner.calls).toHaveLength(0);
    expect(countOf(events, 'strategy_selected')).toBe(0);
  });

  it('a step parked awaiting approval is not replanned: the resume continues the same step', async () => {
    const store = memoryStore();
    const { tool: deploy, executed } = countingTool('deploy');
    const planner = scriptedModel([plan('build', 'deploy the api')]);
    const model = scriptedModel([{ text: 'built' }, { toolCalls: [{ name: 'deploy', args: { n: 1 }, id: 'call-deploy' }] }, { text: 'api deployed' }]);
    const kernel = createKernel({
      model,
      planner,
      tools: [deploy],
      store,
      strategy: 'plan_execute',
      policy: { checkToolCall: (request) => (request.name === 'deploy' ? { decision: 'require_approval', reason: 'deploys need a human' } : { decision: 'allow' }) },
    });

    const parked = await kernel.start(['ship it'], { runId: 'plan-approval' }).result;
    expect(parked.stop.reason).toBe('awaiting_approval');

    const resumed = await (await kernel.resume('plan-approval', { approvals: { 'call-deploy': 'approve' } })).result;
    expect(resumed.stop.reason).toBe('goal_achieved');
    expect(resumed.tasks.map((task) => [task.taskId, task.stop.reason])).toEqual([
      ['plan-1-step-1', 'planner_stopped'],
      ['plan-1-step-2', 'planner_stopped'],
    ]);
    expect(executed).toEqual([{ n: 1 }]);
    expect(planner.calls).toHaveLength(1);
  });
});
