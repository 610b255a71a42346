import { AssertionError } from 'node:assert';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createKernel, defineTool, runWorkflow, type PolicyGate } from 'dualloop';
import { expectStop, manualClock, memoryStore, recordRun, scriptedModel } from 'dualloop/testing';
import { createModuleGraph, isProjectFile, walk } from '../support/import-graph.js';

const echo = defineTool({ name: 'echo', description: 'Echoes.', parameters: z.object({ text: z.string() }), execute: ({ text }) => text });

/** What `action` threw, so that a test can read its message. */
function thrown(action: () => unknown): Error {
  try {
    action();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a throw');
}

describe('recordRun', () => {
  it('records the events, the result and the tool calls of a run', async () => {
    const model = scriptedModel([{ toolCalls: [{ name: 'echo', args: { text: 'a' } }, { name: 'echo', args: { text: 'b' } }] }, { text: 'done' }]);
    const recording = await recordRun(createKernel({ model, tools: [echo] }).start(['say a and b']));
    expect(recording.events.map((event) => event.seq)).toEqual(recording.events.map((_, index) => index + 1));
    expect(recording.ofType('task_end')).toHaveLength(1);
    expect(recording.toolCalls().map((call) => [call.name, call.result, call.isError])).toEqual([
      ['echo', 'a', false],
      ['echo', 'b', false],
    ]);
    expect(recording.expectStop('goal_achieved')).toBe(recording.result.stop);
    expect(recording.expectTaskStop(0, 'planner_stopped')).toBe(recording.result.tasks[0]!.stop);
    expect(recording.expectTaskStop('task-1', 'planner_stopped')).toBe(recording.result.tasks[0]!.stop);
    expect(recording.expectCompleted()).toBe(recording.result);
  });

  it('a wrong reason throws an AssertionError saying what was expected and how the run stopped', async () => {
    const model = scriptedModel(({ index }) => ({ toolCalls: [{ name: 'echo', args: { text: `${index}` } }] }));
    const recording = await recordRun(createKernel({ model, tools: [echo], bounds: { inner: { maxTurns: 2 } } }).start(['loop']));
    const error = thrown(() => recording.expectStop('goal_achieved'));
    expect(error).toBeInstanceOf(AssertionError);
    expect(error.message).toMatch(/^expected run run-[\w-]+ to stop "goal_achieved", but it stopped "max_turns" \(task "task-1" stopped: turn 2 reached maxTurns=2\)/);
    expect(recording.expectStop('max_turns', { bound: 'maxTurns', detail: /maxTurns=2/ }).bound).toMatchObject({ limit: 2, value: 2 });
    expect(thrown(() => recording.expectStop('max_turns', { bound: 'maxToolCalls' })).message).toContain('to stop "max_turns" on bound maxToolCalls');
    expect(thrown(() => recording.expectStop('max_turns', { detail: 'maxTurns=3' })).message).toContain('with a detail matching "maxTurns=3"');
    expect(thrown(() => recording.expectTaskStop(1, 'max_turns')).message).toContain('has no result for task 1; tasks that ran: 0 (task-1)');
    expect(thrown(() => recording.expectCompleted()).message).toContain('to complete, but it stopped "max_turns"');
  });

  it('an error stop: the message names its code and the error events; a wrong code fails', async () => {
    const recording = await recordRun(createKernel({ model: scriptedModel([{ error: 'provider down' }]) }).start(['fail']));
    expect(recording.expectStop('error', { code: 'model_failed' }).code).toBe('model_failed');
    const error = thrown(() => recording.expectStop('error', { code: 'tool_failed' }));
    expect(error.message).toContain('to stop "error" with code tool_failed, but it stopped "error" [model_failed]');
    expect(error.message).toContain('error events: model/model_failed:');
    expect(error.message).toContain('provider down');
  });

  it('expectStop checks what runWorkflow returns, without events', async () => {
    const result = await runWorkflow({ model: scriptedModel([{ text: 'done' }]), tasks: ['answer'] });
    expect(expectStop(result, 'goal_achieved').reason).toBe('goal_achieved');
    expect(() => expectStop(result.tasks[0]!.stop, 'max_turns')).toThrow(/expected the run to stop "max_turns", but it stopped "planner_stopped"/);
  });
});

describe('a workflow tested offline with the fakes of dualloop/testing', () => {
  it('parks on an approval, resumes from the in-memory store, and meets its deadline on a manual clock', async () => {
    const store = memoryStore();
    const clock = manualClock();
    const policy: PolicyGate = { checkToolCall: (request) => (request.name === 'echo' ? { decision: 'require_approval', reason: 'a human reads it first' } : { decision: 'allow' }) };
    const model = scriptedModel([{ toolCalls: [{ name: 'echo', args: { text: 'hello' }, id: 'call-1' }] }, { text: 'said hello' }]);
    const kernel = createKernel({ model, tools: [echo], store, clock, policy });

    const parked = await recordRun(kernel.start(['say hello'], { runId: 'offline' }));
    parked.expectStop('awaiting_approval', { detail: 'call-1' });
    expect(store.audit('offline')?.status).toBe('resumable');

    const resumed = await recordRun(await kernel.resume('offline', { approvals: { 'call-1': 'approve' } }));
    resumed.expectStop('goal_achieved');
    expect(resumed.toolCalls().map((call) => call.result)).toEqual(['hello']);

    const slow = scriptedModel([{ text: 'late', delayMs: 60_000 }]);
    const deadline = createKernel({ model: slow, clock, bounds: { inner: { maxRuntimeMs: 1_000 } } }).start(['wait']);
    const recording = recordRun(deadline);
    await new Promise((resolve) => setImmediate(resolve));
    clock.advance(1_000);
    (await recording).expectTaskStop(0, 'max_runtime');
  });

  it('dualloop/testing imports no test framework', () => {
    const reached = [...walk(createModuleGraph(), ['src/testing/index.ts']).keys()].filter((target) => !isProjectFile(target));
    expect(reached.filter((name) => /vitest|jest|mocha|chai|@jest/.test(name))).toEqual([]);
    expect(reached).toContain('node:assert');
  });
});
