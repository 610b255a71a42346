// Part of the conformance suite (test/store/conformance.ts): the audit report.
import { describe, expect, it } from 'vitest';
import type { CheckpointStore } from 'dualloop';
import { compactionEvent, event, history, policyEvent, runRecord, T0, taskResult, workflowResult } from './builders.js';

export function describeAuditConformance(current: () => CheckpointStore): void {
  describe('audit', () => {
    it('reports a run without a result from its latest checkpoint, with the task it was in', async () => {
      const store = current();
      await store.createRun(runRecord('run-a', { name: 'nightly' }));
      await store.appendEvent(event('run-a', 1));
      await store.appendEvent(policyEvent('run-a', 2, 'allow', 'read-only tool'));
      await store.appendEvent(policyEvent('run-a', 3, 'require_approval', 'deploys need a human'));
      for (const entry of history('run-a').slice(0, 3)) await store.saveCheckpoint(entry);
      const report = await store.audit('run-a');
      expect(report).toMatchObject({ runId: 'run-a', name: 'nightly', createdAt: T0, status: 'incomplete', events: 3 });
      expect(report?.workflow.stop).toBeUndefined();
      expect(report?.workflow.metrics).toEqual(history('run-a')[1]!.snapshot!.metrics);
      expect(report?.tasks.map((task) => [task.taskId, task.stop.reason])).toEqual([['task-1', 'planner_stopped']]);
      expect(report?.active).toEqual({
        taskId: 'task-2',
        index: 1,
        description: 'second',
        counters: { turns: 1, toolCalls: 1, inputTokens: 10, outputTokens: 4, costUsd: 0.001, runtimeMs: 12 },
        turns: [{ turn: 1, toolCalls: [{ id: 'call-1-1', name: 'lookup', isError: false }], usage: { inputTokens: 10, outputTokens: 4 }, runtimeMs: 12 }],
        compactions: [],
      });
      expect(report?.policyDecisions).toEqual([
        { at: T0 + 2, seq: 2, subject: 'tool', taskId: 'task-1', toolCallId: 'call-2', toolName: 'deploy', decision: 'allow', reason: 'read-only tool' },
        {
          at: T0 + 3,
          seq: 3,
          subject: 'tool',
          taskId: 'task-1',
          toolCallId: 'call-3',
          toolName: 'deploy',
          decision: 'require_approval',
          reason: 'deploys need a human',
          approvalId: 'call-3',
        },
      ]);
    });

    it('reports a run that has neither checkpoint nor result as incomplete and empty', async () => {
      const store = current();
      await store.createRun(runRecord('run-a'));
      const report = await store.audit('run-a');
      expect(report).toMatchObject({ status: 'incomplete', tasks: [], policyDecisions: [], events: 0 });
      expect(report?.active).toBeUndefined();
    });

    it('gives each task its stop, the counters at the stop and the bound that fired with its configured value', async () => {
      const store = current();
      await store.createRun(runRecord('run-a'));
      const bound = { name: 'maxTurns', limit: 3, value: 3 };
      const tasks = [taskResult(0), taskResult(1, 'max_turns', bound)];
      const result = { ...workflowResult('run-a', 'max_turns', tasks), stop: { ...tasks[1]!.stop } };
      for (const entry of history('run-a').slice(0, 3)) await store.saveCheckpoint(entry);
      await store.saveResult(result);
      const report = await store.audit('run-a');
      expect(report?.status).toBe('finished');
      expect(report?.active).toBeUndefined();
      expect(report?.workflow).toEqual({ stop: result.stop, metrics: result.metrics, bound });
      expect(report?.tasks[1]).toMatchObject({
        taskId: 'task-2',
        stop: { reason: 'max_turns' },
        bound,
        counters: { turns: 2, toolCalls: 1, inputTokens: 22, outputTokens: 10, costUsd: 0.003, runtimeMs: 20 },
      });
      expect(report?.tasks[1]?.turns.map((turn) => turn.stop?.reason)).toEqual([undefined, 'max_turns']);
    });

    it('puts each compaction on its task and turn, the latest one of a turn that ran again after a resume', async () => {
      const store = current();
      await store.createRun(runRecord('run-a'));
      await store.appendEvent(event('run-a', 1));
      await store.appendEvent(compactionEvent('run-a', 2, 0, 2, [9, 4]));
      await store.appendEvent(compactionEvent('run-a', 3, 1, 2, [12, 12], 'canceled'));
      await store.appendEvent(compactionEvent('run-a', 4, 1, 2, [12, 5]));
      await store.appendEvent(compactionEvent('run-a', 5, 1, 3, [8, 8], 'failed'));
      for (const entry of history('run-a').slice(0, 3)) await store.saveCheckpoint(entry);
      await store.saveResult(workflowResult('run-a', 'goal_achieved', [taskResult(0), taskResult(1)]));
      const report = await store.audit('run-a');
      expect(report?.events).toBe(5);
      const [first, second] = report!.tasks;
      expect(first?.compactions).toEqual([{ at: T0 + 2, seq: 2, turn: 2, outcome: 'compacted', messagesBefore: 9, messagesAfter: 4 }]);
      expect(first?.turns.map((turn) => turn.compaction?.messagesAfter)).toEqual([undefined, 4]);
      // Turn 3 of task 2 has no record (its run went no further): the task lists it, no turn does.
      expect(second?.compactions.map((compaction) => [compaction.turn, compaction.outcome, compaction.messagesAfter])).toEqual([
        [2, 'compacted', 5],
        [3, 'failed', 8],
      ]);
      expect(second?.turns.map((turn) => turn.compaction?.seq)).toEqual([undefined, 4]);
    });

    it('shows the wrap-up call that followed a task’s stop: after which turn, how it finished, its length and usage', async () => {
      const store = current();
      await store.createRun(runRecord('run-a'));
      const bound = { name: 'maxTurns', limit: 2, value: 2 };
      const wrapUp = { turn: 2, assistantText: 'best so far', toolCalls: [], usage: { inputTokens: 30, outputTokens: 7 }, costUsd: 0.004, runtimeMs: 9, finishReason: 'length' as const };
      const cut = { ...taskResult(1, 'max_turns', bound), output: 'best so far', wrapUp };
      await store.saveResult({ ...workflowResult('run-a', 'max_turns', [taskResult(0), cut]), stop: cut.stop });
      expect((await store.loadResult('run-a'))?.tasks[1]?.wrapUp).toEqual(wrapUp);
      const report = await store.audit('run-a');
      expect(report?.tasks[0]?.wrapUp).toBeUndefined();
      expect(report?.tasks[1]?.wrapUp).toEqual({ afterTurn: 2, finishReason: 'length', textLength: 11, usage: { inputTokens: 30, outputTokens: 7 }, costUsd: 0.004, runtimeMs: 9 });
    });

    it('calls a run stopped for approval, cancellation or an error resumable', async () => {
      const store = current();
      for (const reason of ['awaiting_approval', 'context_canceled', 'error'] as const) {
        await store.createRun(runRecord(`run-${reason}`));
        await store.saveResult(workflowResult(`run-${reason}`, reason, [taskResult(0)]));
        expect((await store.audit(`run-${reason}`))?.status).toBe('resumable');
      }
    });
  });
}
