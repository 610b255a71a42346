// Part of the conformance suite (test/store/conformance.ts): what a store keeps for forks
// (`RunRecord.forkOf`, issue 21, ADR/0221) and a fork through the kernel on this store.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createKernel, defineTool, type CheckpointStore } from 'dualloop';
import { manualClock, scriptedModel } from 'dualloop/testing';
import { runRecord, T0 } from './builders.js';

const count = defineTool({ name: 'count', description: 'counts', parameters: z.object({ n: z.number() }), execute: ({ n }) => n + 1 });

export function describeForkConformance(current: () => CheckpointStore): void {
  describe('forks', () => {
    it('keeps where a fork came from, lists it with the run and audits it', async () => {
      const store = current();
      await store.createRun(runRecord('parent'));
      const fork = runRecord('child', { createdAt: T0 + 1, forkOf: { runId: 'parent', at: { task: 2, turn: 3 } } });
      await store.createRun(fork);
      await store.createRun(runRecord('task-fork', { createdAt: T0 + 2, forkOf: { runId: 'child', at: { task: 1 } } }));
      expect(await store.getRun('child')).toEqual(fork);
      expect(await store.getRun('parent')).not.toHaveProperty('forkOf');
      const listed = await store.listRuns();
      expect(listed.map((run) => [run.runId, run.forkOf])).toEqual([
        ['task-fork', { runId: 'child', at: { task: 1 } }],
        ['child', { runId: 'parent', at: { task: 2, turn: 3 } }],
        ['parent', undefined],
      ]);
      expect(listed[2]).not.toHaveProperty('forkOf');
      expect((await store.audit('child'))?.forkOf).toEqual({ runId: 'parent', at: { task: 2, turn: 3 } });
      expect(await store.audit('parent')).not.toHaveProperty('forkOf');
    });

    it('keeps the parent of a delegated run and lists it with the run', async () => {
      const store = current();
      await store.createRun(runRecord('root'));
      const child = runRecord('root.task-1.1.0', { createdAt: T0 + 1, parent: { runId: 'root', toolCallId: 'call-research' } });
      await store.createRun(child);
      expect(await store.getRun('root.task-1.1.0')).toEqual(child);
      expect(await store.getRun('root')).not.toHaveProperty('parent');
      const listed = await store.listRuns();
      expect(listed.map((run) => [run.runId, run.parent])).toEqual([
        ['root.task-1.1.0', { runId: 'root', toolCallId: 'call-research' }],
        ['root', undefined],
      ]);
      expect(listed[1]).not.toHaveProperty('parent');
    });

    it('lets the kernel fork a run at a task and at a turn, leaving the source as it was', async () => {
      const store = current();
      const steps = [{ toolCalls: [{ name: 'count', args: { n: 1 }, id: 'call-1' }] }, { text: 'two' }, { toolCalls: [{ name: 'count', args: { n: 2 }, id: 'call-2' }] }, { text: 'three' }];
      const kernel = createKernel({ model: scriptedModel(steps), tools: [count], store, clock: manualClock() });
      const source = await kernel.start(['first', 'second'], { runId: 'source' }).result;
      expect(source.stop.reason).toBe('goal_achieved');
      const history = JSON.stringify(await store.listCheckpoints('source'));
      const events = (await store.readEvents('source')).length;

      const other = [...steps.slice(0, 3), { text: 'THREE' }];
      const model = scriptedModel(other);
      const forkKernel = createKernel({ model, tools: [count], store, clock: manualClock() });
      const atTurn = await (await forkKernel.fork('source', { at: { task: 2, turn: 2 }, runId: 'at-turn' })).result;
      expect(atTurn.tasks.map((task) => task.output)).toEqual(['two', 'THREE']);
      expect(atTurn.metrics).toMatchObject({ turns: 4, toolCalls: 2 });
      expect(model.calls.map((call) => call.index)).toEqual([3]);
      const atTask = await (await forkKernel.fork('at-turn', { at: { task: 2 }, runId: 'at-task' })).result;
      expect(atTask.tasks.map((task) => task.output)).toEqual(['two', 'THREE']);
      expect(model.calls.map((call) => call.index)).toEqual([3, 2, 3]);

      expect(JSON.stringify(await store.listCheckpoints('source'))).toBe(history);
      expect(await store.readEvents('source')).toHaveLength(events);
      expect(await store.getRun('at-task')).toMatchObject({ forkOf: { runId: 'at-turn', at: { task: 2 } } });
      expect((await store.loadResult('at-turn'))?.stop.reason).toBe('goal_achieved');
      // Its history starts with a snapshot of the state at the point: the fork stands on its own.
      expect((await store.listCheckpoints('at-turn'))[0]).toMatchObject({ sequence: 1, kind: 'turn', taskIndex: 1, turn: 1, tasksDone: 1, snapshot: true });
    });
  });
}
