import { describe, expect, it } from 'vitest';
import { createKernel, memoryStore, type Compactor, type KernelEvent, type Message } from 'dualloop';
import { collectRun, scriptedModel } from 'dualloop/testing';
import { countingTool, waitForEvent } from '../support/kernel-fixtures.js';

/** Keeps the task's first two messages and a note: what a summarising compactor might leave. */
const summarise = (messages: readonly Message[]): Message[] => [...messages.slice(0, 2), { role: 'user', content: '(earlier turns summarised)' }];

/** Compacts before turn 3 only. */
const atTurnThree = (compact: Compactor['compact'] = summarise): Compactor => ({ shouldCompact: (_messages, { turn }) => turn === 3, compact });

/** The transcript before turn 3: the task, then two turns of a call and its result. */
const BEFORE_TURN_THREE = 5;

/** Four turns of tool calls, then an answer. */
const worker = () => scriptedModel(({ index }) => (index < 4 ? { toolCalls: [{ name: 'step', args: { n: index } }] } : { text: 'done' }));

/** The types of the events of turn 3 (and the untimed ones between), in order. */
function turnThree(events: readonly KernelEvent[]): string[] {
  const start = events.findIndex((event) => event.type === 'turn_start' && event.turn === 3);
  const end = events.findIndex((event) => event.type === 'message_start' && event.turn === 3);
  return events.slice(start, end + 1).map((event) => event.type);
}

describe('compaction events', () => {
  it('reports COMPACT as compaction_start and compaction_end, before the turn’s model call, with the transcript’s size before and after', async () => {
    const store = memoryStore();
    const { tool } = countingTool();
    const model = worker();
    const { events, result } = await collectRun(createKernel({ model, tools: [tool], store, compactor: atTurnThree() }).start(['long'], { runId: 'compacts' }));

    expect(result.stop.reason).toBe('goal_achieved');
    expect(turnThree(events)).toEqual(['turn_start', 'compaction_start', 'compaction_end', 'message_start']);
    // Before: what turn 2's model call saw, plus its answer and the tool result. After: what turn 3's call saw.
    const before = model.calls[1]!.messages.length + 2;
    expect(before).toBe(BEFORE_TURN_THREE);
    expect(events.filter((event) => event.type === 'compaction_start')).toEqual([expect.objectContaining({ taskId: 'task-1', taskIndex: 0, turn: 3, messagesBefore: before })]);
    const end = events.filter((event) => event.type === 'compaction_end');
    expect(end).toEqual([expect.objectContaining({ taskId: 'task-1', taskIndex: 0, turn: 3, outcome: 'compacted', messagesBefore: before, messagesAfter: 3 })]);
    expect(model.calls[2]!.messages).toHaveLength(3);

    const audit = await store.audit('compacts');
    const compaction = { at: end[0]!.at, seq: end[0]!.seq, turn: 3, outcome: 'compacted', messagesBefore: before, messagesAfter: 3 };
    expect(audit?.tasks[0]?.compactions).toEqual([compaction]);
    expect(audit?.tasks[0]?.turns.map((turn) => turn.compaction)).toEqual([undefined, undefined, compaction, undefined, undefined]);
  });

  it('a compaction that throws ends failed, before the error event that explains the task’s error stop', async () => {
    const store = memoryStore();
    const { tool } = countingTool();
    const compactor = atTurnThree(() => {
      throw new Error('summariser down');
    });
    const { events, result } = await collectRun(createKernel({ model: worker(), tools: [tool], store, compactor }).start(['long'], { runId: 'compaction-fails' }));

    expect(result.stop).toMatchObject({ reason: 'error', code: 'compactor_failed' });
    const types = events.map((event) => event.type);
    expect(types.slice(types.indexOf('compaction_start'), types.indexOf('task_end') + 1)).toEqual(['compaction_start', 'compaction_end', 'error', 'turn_end', 'task_end']);
    expect(events.find((event) => event.type === 'compaction_end')).toMatchObject({ turn: 3, outcome: 'failed', messagesBefore: BEFORE_TURN_THREE, messagesAfter: BEFORE_TURN_THREE });

    const audit = await store.audit('compaction-fails');
    expect(audit?.tasks[0]?.turns[2]).toMatchObject({ turn: 3, stop: { reason: 'error' }, compaction: { outcome: 'failed', messagesBefore: BEFORE_TURN_THREE, messagesAfter: BEFORE_TURN_THREE } });
    expect(audit?.errors).toEqual([expect.objectContaining({ scope: 'compactor', message: 'compact threw: summariser down' })]);
  });

  it('a compactor that answers no list of messages fails like one that throws', async () => {
    const { tool } = countingTool();
    const compactor = atTurnThree(() => undefined as unknown as Message[]);
    const { events, result } = await collectRun(createKernel({ model: worker(), tools: [tool], compactor }).start(['long']));
    expect(result.stop).toMatchObject({ reason: 'error', code: 'compactor_failed' });
    expect(result.stop.detail).toContain('compact returned no list of messages');
    expect(events.find((event) => event.type === 'compaction_end')).toMatchObject({ outcome: 'failed', messagesAfter: BEFORE_TURN_THREE });
  });

  it('a stop during the compaction ends it canceled; a resume compacts that turn again, and the audit keeps the latest', async () => {
    const store = memoryStore();
    const { tool } = countingTool();
    let calls = 0;
    // The first compaction waits until the task stops; the one after the resume answers at once.
    const compactor = atTurnThree((messages, signal) => {
      calls += 1;
      if (calls > 1) return summarise(messages);
      return new Promise<never>((_resolve, reject) => signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true }));
    });
    const kernel = createKernel({ model: worker(), tools: [tool], store, compactor });
    const run = kernel.start(['long'], { runId: 'compaction-canceled' });
    await waitForEvent(run, (event) => event.type === 'compaction_start');
    run.abort('operator stop');
    const stopped = await run.result;
    expect(stopped.stop.reason).toBe('context_canceled');
    const firstSegment = await store.readEvents('compaction-canceled');
    expect(firstSegment.filter((event) => event.type === 'compaction_end')).toEqual([expect.objectContaining({ turn: 3, outcome: 'canceled', messagesBefore: BEFORE_TURN_THREE, messagesAfter: BEFORE_TURN_THREE })]);
    expect((await store.audit('compaction-canceled'))?.tasks[0]?.turns[2]?.compaction).toMatchObject({ outcome: 'canceled' });

    const resumed = await (await kernel.resume('compaction-canceled')).result;
    expect(resumed.stop.reason).toBe('goal_achieved');
    expect(calls).toBe(2);
    const all = await store.readEvents('compaction-canceled');
    const ends = all.filter((event) => event.type === 'compaction_end');
    expect(ends.map((event) => event.outcome)).toEqual(['canceled', 'compacted']);
    const audit = await store.audit('compaction-canceled');
    expect(audit?.tasks[0]?.compactions).toEqual([expect.objectContaining({ turn: 3, outcome: 'compacted', seq: ends[1]!.seq, messagesAfter: 3 })]);
    expect(audit?.tasks[0]?.turns[2]?.compaction?.outcome).toBe('compacted');
  });
});
