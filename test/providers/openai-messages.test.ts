import { describe, expect, it } from 'vitest';
import { toWireMessages, toWireTools } from '../../src/providers/openai-messages.js';

describe('toWireMessages', () => {
  it('keeps assistant text next to tool calls and sends plain assistant text as is', () => {
    expect(
      toWireMessages([
        { role: 'assistant', content: 'Let me check.', toolCalls: [{ id: 'c1', name: 'f', args: { a: [1, 2] } }] },
        { role: 'assistant', content: 'Done.' },
        { role: 'user', content: 'thanks', source: 'follow_up' },
      ]),
    ).toEqual([
      { role: 'assistant', content: 'Let me check.', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{"a":[1,2]}' } }] },
      { role: 'assistant', content: 'Done.' },
      { role: 'user', content: 'thanks' },
    ]);
  });

  it('replays a call whose arguments were malformed as {} so the history stays valid JSON', () => {
    const [message] = toWireMessages([{ role: 'assistant', content: '', toolCalls: [{ id: 'c', name: 'f', args: undefined, argumentsError: 'bad' }] }]);

    expect(message).toEqual({ role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }] });
  });

  it('sends error tool results as ordinary tool messages', () => {
    expect(toWireMessages([{ role: 'tool', toolCallId: 'c', name: 'f', content: 'Error: boom', isError: true }])).toEqual([
      { role: 'tool', tool_call_id: 'c', content: 'Error: boom' },
    ]);
  });
});

describe('toWireTools', () => {
  it('drops only the root $schema keyword', () => {
    const [tool] = toWireTools([
      { name: 'f', description: 'd', parameters: { $schema: 'x', type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false } },
    ]);

    expect(tool).toEqual({ type: 'function', function: { name: 'f', description: 'd', parameters: { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false } } });
  });
});
