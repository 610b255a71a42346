import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { createKernel, defineTool, type Message, type TransformContext } from 'dualloop';
import { collectRun, scriptedModel } from 'dualloop/testing';

const lookup = defineTool({ name: 'lookup', description: 'looks up', parameters: z.object({}), execute: () => 'a long tool output' });

describe('transformContext', () => {
  it("its output is exactly what the model receives, and the stored transcript is untouched", async () => {
    const given: (readonly Message[])[] = [];
    const produced: Message[][] = [];
    const transformContext: TransformContext = (messages) => {
      given.push(messages);
      // Drop tool outputs from what the model sees and add a note: a typical pruning transform.
      const view: Message[] = [
        ...messages.map((message): Message => (message.role === 'tool' ? { ...message, content: '[pruned]' } : message)),
        { role: 'user', content: `note: ${messages.length} messages` },
      ];
      produced.push(view);
      return view;
    };
    const model = scriptedModel([{ toolCalls: [{ name: 'lookup' }] }, { text: 'done' }]);
    const { result } = await collectRun(createKernel({ model, tools: [lookup], system: 'be brief', transformContext }).start(['look it up']));

    expect(model.calls.map((call) => call.messages)).toEqual(produced);
    // The second call was given the real transcript, with the real tool output and no note.
    expect(given[1]!.find((message) => message.role === 'tool')!.content).toBe('a long tool output');
    expect(given[1]!.some((message) => message.content.startsWith('note:'))).toBe(false);
    expect(result.tasks[0]!.turns[0]!.toolCalls[0]!.result).toBe('a long tool output');
  });

  it('runs before the ephemeral messages are appended', async () => {
    const model = scriptedModel([{ text: 'ok' }]);
    const transformContext: TransformContext = (messages) => messages.map((message) => ({ ...message, content: message.content.toUpperCase() }) as Message);
    await collectRun(
      createKernel({ model, transformContext, ephemeralMessages: () => [{ role: 'user', content: 'ephemeral', source: 'ephemeral' }] }).start(['hi']),
    );
    expect(model.calls[0]!.messages.map((message) => message.content)).toEqual(['HI', 'ephemeral']);
  });

  it('a throw ends the task `error` without calling the model', async () => {
    const model = scriptedModel([{ text: 'never' }]);
    const transformContext: TransformContext = () => {
      throw new Error('bad transform');
    };
    const { result } = await collectRun(createKernel({ model, transformContext }).start(['hi']));
    expect(model.calls).toHaveLength(0);
    expect(result.tasks[0]!.stop.reason).toBe('error');
    expect(result.tasks[0]!.stop.detail).toContain('transformContext threw: bad transform');
  });
});
