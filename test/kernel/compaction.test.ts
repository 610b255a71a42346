import { describe, expect, it } from 'vitest';
import { keepRecentTurns, runWorkflow, type Message } from 'dualloop';
import { scriptedModel } from 'dualloop/testing';
import { countingTool } from '../support/kernel-fixtures.js';

function transcript(turns: number): Message[] {
  const messages: Message[] = [{ role: 'system', content: 'sys' }, { role: 'user', content: 'task' }];
  for (let turn = 1; turn <= turns; turn += 1) {
    messages.push({ role: 'assistant', content: `t${turn}`, toolCalls: [{ id: `c${turn}`, name: 'step', args: {} }] });
    messages.push({ role: 'tool', toolCallId: `c${turn}`, name: 'step', content: `r${turn}`, isError: false });
  }
  return messages;
}

describe('the default compactor', () => {
  it('keeps the first turn and the last N-1, never splitting a call from its result, without mutating its input', async () => {
    const compactor = keepRecentTurns({ keep: 3 });
    const input = transcript(6);
    const frozen = structuredClone(input);
    expect(compactor.shouldCompact(input, { turn: 7 })).toBe(true);
    const output = await compactor.compact(input, new AbortController().signal);

    expect(input).toEqual(frozen);
    expect(output.map((message) => (message.role === 'assistant' ? message.content : message.role))).toEqual([
      'system', 'user', 't1', 'tool', 'user', 't5', 'tool', 't6', 'tool',
    ]);
    expect(output[4]!.content).toContain('3 earlier turns omitted');
  });

  it('does not compact a transcript within its budget', () => {
    expect(keepRecentTurns({ keep: 3 }).shouldCompact(transcript(3), { turn: 4 })).toBe(false);
  });

  it('runs inside the loop: the model sees the compacted transcript', async () => {
    const { tool } = countingTool();
    const model = scriptedModel(({ index }) => (index < 6 ? { toolCalls: [{ name: 'step', args: { n: index } }] } : { text: 'done' }));
    const result = await runWorkflow({ model, tools: [tool], tasks: ['long'], compactor: keepRecentTurns({ keep: 3 }) });
    expect(result.stop.reason).toBe('goal_achieved');
    const lastCall = model.calls[model.calls.length - 1]!.messages;
    expect(lastCall.filter((message) => message.role === 'assistant')).toHaveLength(3);
  });

  it('ends the task error when the compactor throws', async () => {
    const { tool } = countingTool();
    const model = scriptedModel(({ index }) => ({ toolCalls: [{ name: 'step', args: { n: index } }] }));
    const result = await runWorkflow({
      model,
      tools: [tool],
      tasks: ['t'],
      compactor: {
        shouldCompact: (_messages, { turn }) => turn === 2,
        compact: () => {
          throw new Error('summariser down');
        },
      },
    });
    expect(result.stop.reason).toBe('error');
    expect(result.stop.detail).toContain('summariser down');
  });

  it('runs the compactor only on the turns it has work, in one actor per task (not one per turn)', async () => {
    const { tool } = countingTool();
    const model = scriptedModel(({ index }) => (index % 10 < 9 ? { toolCalls: [{ name: 'step', args: { n: index } }] } : { text: 'done' }));
    const asked: number[] = [];
    const compacted: number[] = [];
    let compactorActors = 0;
    const result = await runWorkflow({
      model,
      tools: [tool],
      tasks: ['first', 'second'],
      compactor: {
        shouldCompact: (_messages, { turn }) => {
          asked.push(turn);
          return turn >= 4 && turn !== 6;
        },
        compact: (messages) => {
          compacted.push(messages.length);
          return messages;
        },
      },
      inspect: (event) => {
        const inspected = event as { type: string; actorRef: { id: string } };
        if (inspected.type === '@xstate.actor' && inspected.actorRef.id === 'compactor') compactorActors += 1;
      },
    });
    expect(result.stop.reason).toBe('goal_achieved');
    // Asked at every turn of both tasks; compacted at turns 4, 5, 7, 8, 9, 10 of each.
    expect(asked).toHaveLength(20);
    expect(compacted).toHaveLength(12);
    expect(compactorActors).toBe(2);
  });
});
