import { stream, type ScriptedResponse, type StreamStep } from './openai-compatible-server.js';

/*
 * Anthropic Messages streaming answers (named SSE events) for the local test server, so the real
 * `@ai-sdk/anthropic` provider can be pointed at it: `message_start` carries the input tokens,
 * `message_delta` the stop reason and the output tokens.
 */

const event = (name: string, data: Record<string, unknown>): StreamStep => ({ raw: `event: ${name}\ndata: ${JSON.stringify({ type: name, ...data })}\n\n` });

function message(blocks: readonly StreamStep[][], stopReason: string, usage: readonly [number, number], model: string): ScriptedResponse {
  const [input, output] = usage;
  return stream(
    [
      event('message_start', { message: { id: 'msg_test', type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: input, output_tokens: 1 } } }),
      ...blocks.flat(),
      event('message_delta', { delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: output } }),
      event('message_stop', {}),
    ],
  );
}

/** Text in the given deltas, ending `end_turn`. */
export function anthropicText(deltas: readonly string[], options: { usage?: readonly [number, number]; model?: string } = {}): ScriptedResponse {
  const block = [
    event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
    ...deltas.map((text) => event('content_block_delta', { index: 0, delta: { type: 'text_delta', text } })),
    event('content_block_stop', { index: 0 }),
  ];
  return message([block], 'end_turn', options.usage ?? [10, deltas.length], options.model ?? 'claude-test-20260101');
}

/** `tool_use` blocks, each one's input JSON split into the given fragments, ending `tool_use`. */
export function anthropicToolUse(calls: readonly { id: string; name: string; fragments: readonly string[] }[], options: { usage?: readonly [number, number]; model?: string } = {}): ScriptedResponse {
  const blocks = calls.map((call, index) => [
    event('content_block_start', { index, content_block: { type: 'tool_use', id: call.id, name: call.name, input: {} } }),
    ...call.fragments.map((partial_json) => event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json } })),
    event('content_block_stop', { index }),
  ]);
  return message(blocks, 'tool_use', options.usage ?? [20, 10], options.model ?? 'claude-test-20260101');
}
