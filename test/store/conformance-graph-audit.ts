// Part of the conformance suite (test/store/conformance.ts): the audit of a graph run.
import { describe, expect, it } from 'vitest';
import { createKernel, type CheckpointStore } from 'dualloop';
import { scriptedModel, type ScriptStep } from 'dualloop/testing';
import { branchGate, taskOf, turnOf } from '../support/graph-fixtures.js';
import { countingTool } from '../support/kernel-fixtures.js';
import { runRecord, stop, taskResult, workflowResult } from './builders.js';

export function describeGraphAuditConformance(current: () => CheckpointStore): void {
  describe('audit of a graph run', () => {
    it('gives every task of the record in task order, with the tasks it waits for and its stop', async () => {
      const store = current();
      const model = scriptedModel((call): ScriptStep => (taskOf(call) === 'loops' ? { toolCalls: [{ name: 'missing' }] } : { text: 'ok' }));
      const kernel = createKernel({ model, store, loopDetection: false, bounds: { inner: { maxTurns: 2 }, outer: { maxParallelTasks: 2 } } });
      const tasks = [
        { id: 'a', description: 'first', dependsOn: [] },
        { id: 'b', description: 'loops', dependsOn: ['a'] },
        { id: 'c', description: 'alone', dependsOn: [] },
        { id: 'd', description: 'after {{b.output}}', dependsOn: ['b', 'c'] },
      ];
      await kernel.start(tasks, { runId: 'graph' }).result;
      const report = await store.audit('graph');
      expect(report?.graph?.tasks).toEqual([
        { taskId: 'a', index: 0, description: 'first', dependsOn: [], state: 'ended' },
        { taskId: 'b', index: 1, description: 'loops', dependsOn: ['a'], state: 'ended' },
        { taskId: 'c', index: 2, description: 'alone', dependsOn: [], state: 'ended' },
        { taskId: 'd', index: 3, description: 'after {{b.output}}', dependsOn: ['b', 'c'], state: 'ended' },
      ]);
      expect(Object.fromEntries(report!.tasks.map((task) => [task.taskId, task.stop.reason]))).toEqual({ a: 'planner_stopped', b: 'max_turns', c: 'planner_stopped', d: 'dependency_failed' });
      expect(report).not.toHaveProperty('running');
      // A list has neither.
      await createKernel({ model: scriptedModel([{ text: 'one' }]), store }).start(['one'], { runId: 'list' }).result;
      const list = await store.audit('list');
      expect(list).not.toHaveProperty('graph');
      expect(list).not.toHaveProperty('running');
    });

    it('lists every task running at the latest checkpoint of a graph run without a result, not only one', async () => {
      const store = current();
      const noop = countingTool('noop');
      const wait = branchGate('wait');
      // Each branch: a first turn that checkpoints, then a second turn that waits at the gate.
      const model = scriptedModel((call): ScriptStep => {
        const turn = turnOf(call);
        return turn === 0 ? { toolCalls: [{ name: 'noop' }] } : turn === 1 ? { toolCalls: [{ name: 'wait' }] } : { text: `${taskOf(call)} done` };
      });
      const kernel = createKernel({ model, store, tools: [noop.tool, wait.tool], bounds: { outer: { maxParallelTasks: 2 } } });
      const run = kernel.start(
        [
          { id: 'left', description: 'left', dependsOn: [] },
          { id: 'right', description: 'right', dependsOn: [] },
          { id: 'merge', description: 'merge', dependsOn: ['left', 'right'] },
        ],
        { runId: 'branching' },
      );
      await expect
        .poll(async () => ((await store.audit('branching'))?.running ?? []).map((task) => [task.taskId, task.counters.turns]).sort(), { timeout: 10_000 })
        .toEqual([
          ['left', 1],
          ['right', 1],
        ]);
      const report = (await store.audit('branching'))!;
      expect(report.status).toBe('incomplete');
      expect(report.active).toBeUndefined();
      expect(report.running?.find((task) => task.taskId === 'left')?.turns).toMatchObject([{ turn: 1, toolCalls: [{ name: 'noop', isError: false }] }]);
      expect(report.graph?.tasks.map((task) => [task.taskId, task.state])).toEqual([
        ['left', 'in_progress'],
        ['right', 'in_progress'],
        ['merge', 'not_started'],
      ]);
      wait.open();
      expect((await run.result).stop.reason).toBe('goal_achieved');
      const finished = (await store.audit('branching'))!;
      expect(finished).not.toHaveProperty('running');
      expect(finished.graph?.tasks.map((task) => task.state)).toEqual(['ended', 'ended', 'ended']);
    });

    it('puts a fan-out task’s items under it, in item order', async () => {
      const store = current();
      const files = { type: 'object', properties: { files: { type: 'array', items: { type: 'string' } } }, required: ['files'] };
      const bounds = runRecord('any').tasks[0]!.bounds;
      await store.createRun(
        runRecord('fan-out', {
          tasks: [
            { id: 'list', index: 0, description: 'list the files', bounds, output: files },
            { id: 'read', index: 1, description: 'read {{item}}', bounds, forEach: 'list.output.files' },
          ],
        }),
      );
      const item = (position: number) => ({ ...taskResult(1), taskId: `read[${position}]`, description: `read f${position}` });
      const read = { ...taskResult(1, 'goal_achieved'), taskId: 'read', description: 'read {{item}}', turns: [], stop: stop('goal_achieved', 'all 2 items ended') };
      const tasks = [{ ...taskResult(0), taskId: 'list', output: { files: ['f0', 'f1'] } }, item(1), item(0), read];
      await store.saveResult(workflowResult('fan-out', 'goal_achieved', tasks));
      const report = await store.audit('fan-out');
      expect(report?.graph?.tasks).toEqual([
        { taskId: 'list', index: 0, description: 'list the files', dependsOn: [], state: 'ended' },
        { taskId: 'read', index: 1, description: 'read {{item}}', dependsOn: ['list'], forEach: 'list.output.files', state: 'ended', items: ['read[0]', 'read[1]'] },
      ]);
      expect(report?.tasks.map((task) => task.taskId)).toEqual(['list', 'read[1]', 'read[0]', 'read']);
    });

    it('names the tasks a graph fork ran again', async () => {
      const store = current();
      const model = scriptedModel((call): ScriptStep => ({ text: `${taskOf(call)} answered` }));
      const kernel = createKernel({ model, store, bounds: { outer: { maxParallelTasks: 2 } } });
      const tasks = [
        { id: 'a', description: 'a', dependsOn: [] },
        { id: 'b', description: 'b', dependsOn: ['a'] },
        { id: 'c', description: 'c', dependsOn: [] },
      ];
      await kernel.start(tasks, { runId: 'source' }).result;
      await (await kernel.fork('source', { at: { task: 'b' }, runId: 'forked' })).result;
      expect((await store.audit('forked'))?.forkOf).toEqual({ runId: 'source', at: { task: 2 }, rerun: ['b'] });
      expect(await store.audit('source')).not.toHaveProperty('forkOf');
    });
  });
}
