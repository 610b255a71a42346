import { describe, expect, it } from 'vitest';
import { createKernel, type DeliveryMode, type WorkflowRun } from 'dualloop';
import { collectRun, scriptedModel } from 'dualloop/testing';
import { userContents } from './helpers.js';

const FIVE = ['f1', 'f2', 'f3', 'f4', 'f5'];

/** The user messages each model call sees that the call before it did not. */
function newUserMessagesPerCall(calls: readonly { messages: Parameters<typeof userContents>[0] }[]): string[][] {
  return calls.slice(1).map((call, position) => {
    const before = new Set(userContents(calls[position]!.messages));
    return userContents(call.messages).filter((content) => !before.has(content));
  });
}

describe('followUp()', () => {
  it('queued during the last turn, produces exactly one more model call', async () => {
    let run!: WorkflowRun;
    // The follow-up arrives while the model is producing what would be its final answer.
    const model = scriptedModel(({ index }) => {
      if (index === 0) run.followUp('now summarise it');
      return { text: index === 0 ? 'answer' : 'summary' };
    });
    run = createKernel({ model }).start(['answer a question']);
    const { result } = await collectRun(run);

    expect(model.calls).toHaveLength(2);
    expect(model.calls[1]!.messages.at(-1)).toEqual({ role: 'user', content: 'now summarise it', source: 'follow_up' });
    expect(model.calls[1]!.messages.at(-2)).toEqual({ role: 'assistant', content: 'answer' });
    expect(result.tasks[0]!.stop.reason).toBe('planner_stopped');
    expect(result.tasks[0]!.output).toBe('summary');
  });

  it('waits while the model still calls tools: it is delivered only when the model would stop', async () => {
    let run!: WorkflowRun;
    const model = scriptedModel(({ index }) => {
      if (index === 0) {
        run.followUp('and then check the logs');
        return { toolCalls: [{ name: 'missing' }] };
      }
      return { text: `answer ${index}` };
    });
    run = createKernel({ model }).start(['work']);
    await collectRun(run);

    expect(model.calls).toHaveLength(3);
    expect(userContents(model.calls[1]!.messages)).not.toContain('and then check the logs');
    expect(model.calls[2]!.messages.at(-1)).toMatchObject({ content: 'and then check the logs', source: 'follow_up' });
  });

  it.each<[DeliveryMode, number, string[][]]>([
    ['all', 2, [FIVE]],
    ['one-at-a-time', 6, FIVE.map((message) => [message])],
  ])('followUpMode %s drains five follow-ups in %i model calls', async (followUpMode, calls, expected) => {
    const model = scriptedModel(({ index }) => ({ text: `answer ${index}` }));
    const run = createKernel({ model, followUpMode }).start(['work']);
    for (const message of FIVE) run.followUp(message);
    const { result } = await collectRun(run);

    expect(model.calls).toHaveLength(calls);
    expect(newUserMessagesPerCall(model.calls)).toEqual(expected);
    expect(result.tasks[0]!.stop.reason).toBe('planner_stopped');
  });

  it('clearFollowUp() and clearAllQueues() drop what is not yet delivered', async () => {
    for (const clear of ['clearFollowUp', 'clearAllQueues'] as const) {
      const model = scriptedModel(({ index }) => ({ text: `answer ${index}` }));
      const run = createKernel({ model }).start(['work']);
      run.followUp('never delivered');
      run[clear]();
      await collectRun(run);
      expect(model.calls, clear).toHaveLength(1);
    }
  });
});
