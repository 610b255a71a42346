import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { createKernel, defineTool, terminate } from 'dualloop';
import { collectRun, scriptedModel } from 'dualloop/testing';

const finish = defineTool({
  name: 'finish',
  description: 'hands in the final answer and ends the task',
  parameters: z.object({ answer: z.string() }),
  execute: ({ answer }) => terminate({ answer }),
});
const lookup = defineTool({ name: 'lookup', description: 'looks something up', parameters: z.object({}), execute: () => 'found it' });

describe('terminate(value)', () => {
  it('one terminating call of one: the task ends `tool_terminated` with no further model call', async () => {
    const model = scriptedModel([{ toolCalls: [{ name: 'finish', args: { answer: '42' } }] }, { text: 'never asked' }]);
    const { result } = await collectRun(createKernel({ model, tools: [finish, lookup] }).start(['answer']));

    expect(model.calls).toHaveLength(1);
    const task = result.tasks[0]!;
    expect(task.stop.reason).toBe('tool_terminated');
    // The model sees the unwrapped value, and so does the turn.
    expect(task.turns[0]!.toolCalls[0]).toMatchObject({ name: 'finish', result: { answer: '42' }, isError: false });
    expect(result.stop.reason).toBe('goal_achieved');
  });

  it('every call of the turn terminating: `tool_terminated`', async () => {
    const model = scriptedModel([{ toolCalls: [{ name: 'finish', args: { answer: 'a' } }, { name: 'finish', args: { answer: 'b' } }] }]);
    const { result } = await collectRun(createKernel({ model, tools: [finish] }).start(['answer']));
    expect(model.calls).toHaveLength(1);
    expect(result.tasks[0]!.stop.reason).toBe('tool_terminated');
  });

  it('one terminating call of two: the loop goes on and the model sees both results', async () => {
    const model = scriptedModel([{ toolCalls: [{ name: 'finish', args: { answer: '42' } }, { name: 'lookup' }] }, { text: 'done' }]);
    const { result } = await collectRun(createKernel({ model, tools: [finish, lookup] }).start(['answer']));

    expect(model.calls).toHaveLength(2);
    const toolContents = model.calls[1]!.messages.filter((message) => message.role === 'tool').map((message) => message.content);
    expect(toolContents).toEqual(['{"answer":"42"}', 'found it']);
    expect(result.tasks[0]!.stop.reason).toBe('planner_stopped');
  });

  it('a terminating call whose result an after hook turns into an error does not terminate', async () => {
    const model = scriptedModel([{ toolCalls: [{ name: 'finish', args: { answer: '42' } }] }, { text: 'done' }]);
    const afterToolCall = () => ({ result: 'not accepted', isError: true });
    const { result } = await collectRun(createKernel({ model, tools: [finish], afterToolCall }).start(['answer']));
    expect(model.calls).toHaveLength(2);
    expect(result.tasks[0]!.stop.reason).toBe('planner_stopped');
  });
});
