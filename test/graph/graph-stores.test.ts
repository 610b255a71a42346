/**
 * A graph run on SQLite and Postgres, resumed by another kernel on another connection: the
 * running and parked branches, typed outputs (their JSON Schema read back from the run record)
 * and the kept results come back from the store alone.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createKernel, defineTool, type KernelOptions } from 'dualloop';
import { scriptedModel, type ScriptCall, type ScriptStep } from 'dualloop/testing';
import { storeKinds } from '../control/control-stores.js';

function taskOf(call: ScriptCall): string {
  const first = call.messages.find((message) => message.role === 'user');
  return typeof first?.content === 'string' ? first.content : '';
}

/** The same workflow in each "process": a deploy that needs approval, two typed tasks, a report. */
function options(store: KernelOptions['store']): KernelOptions {
  const deploy = defineTool({ name: 'deploy', description: 'Deploys.', parameters: z.object({}), execute: () => 'deployed' });
  const model = scriptedModel((call): ScriptStep => {
    const task = taskOf(call);
    const answered = call.messages.at(-1)?.role === 'tool';
    if (task === 'deploy it') return answered ? { text: JSON.stringify({ deployed: true }) } : { toolCalls: [{ name: 'deploy', id: 'deploy-1' }] };
    if (task === 'count it') return { text: '{"count": 3}' };
    return { text: `report: ${task}` };
  });
  return {
    model,
    store,
    tools: [deploy],
    policy: { checkToolCall: ({ name }) => (name === 'deploy' ? { decision: 'require_approval', reason: 'a human deploys' } : { decision: 'allow' }) },
    bounds: { outer: { maxParallelTasks: 2 } },
  };
}

const TASKS = [
  { id: 'deploy', description: 'deploy it', output: { type: 'object', properties: { deployed: { type: 'boolean' } }, required: ['deployed'] }, dependsOn: [] },
  { id: 'count', description: 'count it', output: { type: 'object', properties: { count: { type: 'number' } }, required: ['count'] }, dependsOn: [] },
  { id: 'report', description: 'deployed {{deploy.output.deployed}}, {{count.output.count}} items', dependsOn: ['deploy', 'count'] },
];

describe.each(storeKinds())('a graph run on $name', ({ open }) => {
  it('parks one branch, keeps the other, and resumes in another kernel from the store alone', async () => {
    const { runner, sender, close } = open();
    const first = await createKernel(options(runner)).start(TASKS, { runId: 'graph-parked' }).result;
    expect(first.stop.reason).toBe('awaiting_approval');
    expect(first.tasks.find((task) => task.taskId === 'count')?.output).toEqual({ count: 3 });

    const resumed = await (await createKernel(options(sender)).resume('graph-parked', { approvals: { 'deploy-1': 'approve' } })).result;
    expect(resumed.stop.reason).toBe('goal_achieved');
    const outputs = Object.fromEntries(resumed.tasks.map((task) => [task.taskId, task.output]));
    expect(outputs).toEqual({ count: { count: 3 }, deploy: { deployed: true }, report: 'report: deployed true, 3 items' });
    // The report saw both typed outputs; `count` was not run again.
    expect(resumed.tasks.filter((task) => task.taskId === 'count')).toHaveLength(1);
    await close();
  });
});
