// Part of the conformance suite (test/store/conformance.ts): a real run through the kernel.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createKernel, defineTool, readCheckpoint, type CheckpointStore } from 'dualloop';
import { collectRun, manualClock, scriptedModel } from 'dualloop/testing';

const lookup = defineTool({
  name: 'lookup',
  description: 'looks a word up',
  parameters: z.object({ word: z.string() }),
  execute: ({ word }) => ({ word, length: word.length }),
});

export function describeKernelConformance(current: () => CheckpointStore): void {
  describe('under the kernel', () => {
    it('keeps what a two-task run hands over: record, every event, tool results, checkpoints, result, audit', async () => {
      const store = current();
      const model = scriptedModel([
        { toolCalls: [{ name: 'lookup', args: { word: 'durable' }, id: 'call-a' }], usage: { inputTokens: 5, outputTokens: 2 } },
        { text: 'seven letters', usage: { inputTokens: 8, outputTokens: 3 } },
        { toolCalls: [{ name: 'lookup', args: { word: 'run' }, id: 'call-b' }] },
        { text: 'three letters' },
      ]);
      const kernel = createKernel({ model, tools: [lookup], store, clock: manualClock(), name: 'conformance' });
      const run = kernel.start(['measure durable', 'measure run'], { runId: 'kernel-run' });
      const { events, result } = await collectRun(run);

      expect(result.stop.reason).toBe('goal_achieved');
      const record = await store.getRun('kernel-run');
      expect(record).toMatchObject({ runId: 'kernel-run', name: 'conformance', tasks: [{ id: 'task-1' }, { id: 'task-2' }] });
      expect(record?.optionsDigest).toMatch(/^[0-9a-f]{64}$/);

      const logged = await store.readEvents('kernel-run');
      expect(logged).toEqual(JSON.parse(JSON.stringify(events)));
      expect(logged.map((event) => event.seq)).toEqual(logged.map((_, index) => index + 1));

      expect(await store.getToolResult('kernel-run', 'call-a')).toMatchObject({ toolCallId: 'call-a', result: { word: 'durable', length: 7 }, executed: true });
      expect(await store.getToolResult('kernel-run', 'call-b')).toMatchObject({ result: { word: 'run', length: 3 } });
      expect(await store.loadResult('kernel-run')).toEqual(JSON.parse(JSON.stringify(result)));

      const checkpoint = await readCheckpoint(store, 'kernel-run');
      expect(checkpoint).toMatchObject({ kind: 'task', sequence: 4, progress: { results: [{ taskId: 'task-1' }, { taskId: 'task-2' }] } });
      expect(checkpoint?.progress.results).toEqual(JSON.parse(JSON.stringify(result.tasks)));
      expect((await store.listCheckpoints('kernel-run')).map((line) => [line.sequence, line.kind, line.taskId, line.turn, line.tasksDone])).toEqual([
        [1, 'turn', 'task-1', 1, 0],
        [2, 'task', 'task-1', undefined, 1],
        [3, 'turn', 'task-2', 1, 1],
        [4, 'task', 'task-2', undefined, 2],
      ]);
      expect(logged.filter((event) => event.type === 'checkpoint_saved').map((event) => event.kind)).toEqual(['turn', 'task', 'turn', 'task']);

      const report = await store.audit('kernel-run');
      expect(report).toMatchObject({ status: 'finished', workflow: { stop: { reason: 'goal_achieved' } }, events: logged.length });
      expect(report?.tasks.map((task) => [task.taskId, task.stop.reason, task.counters.turns])).toEqual([
        ['task-1', 'planner_stopped', 2],
        ['task-2', 'planner_stopped', 2],
      ]);
      expect((await store.listRuns())[0]).toMatchObject({ runId: 'kernel-run', name: 'conformance', stop: { reason: 'goal_achieved' }, tasksDone: 2, tasksTotal: 2 });
    });
  });
}
