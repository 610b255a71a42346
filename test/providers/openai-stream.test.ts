import { describe, expect, it } from 'vitest';
import { createStreamAssembler, type WireChunk } from '../../src/providers/openai-stream.js';

const delta = (value: Record<string, unknown>, finish: string | null = null): WireChunk => ({ choices: [{ index: 0, delta: value, finish_reason: finish }] });

function assemble(chunks: readonly WireChunk[], callIndex = 0) {
  const assembler = createStreamAssembler(callIndex);
  const deltas = chunks.map((chunk) => assembler.push(chunk)).filter((text) => text !== '');
  return { deltas, result: assembler.finish() };
}

describe('createStreamAssembler', () => {
  it('returns each text delta as it is pushed and leaves the stream incomplete without a finish reason', () => {
    const { deltas, result } = assemble([delta({ role: 'assistant', content: '' }), delta({ content: 'a' }), delta({ content: 'b' })]);

    expect(deltas).toEqual(['a', 'b']);
    expect(result.text).toBe('ab');
    expect(result.finishReason).toBeUndefined();
  });

  it('ignores choices other than the first', () => {
    const { result } = assemble([{ choices: [{ index: 1, delta: { content: 'other' } }] }, delta({ content: 'mine' }, 'stop')]);

    expect(result.text).toBe('mine');
  });

  it('accepts arguments sent as an object (a known Ollama deviation)', () => {
    const { result } = assemble([delta({ tool_calls: [{ index: 0, id: 'c', function: { name: 'f', arguments: { a: 1 } } }] }, 'tool_calls')]);

    expect(result.toolCalls).toEqual([{ id: 'c', name: 'f', args: { a: 1 } }]);
  });

  it('does not double a name that the server repeats in every chunk', () => {
    const { result } = assemble([
      delta({ tool_calls: [{ index: 0, id: 'c', function: { name: 'lookup', arguments: '{"q":' } }] }),
      delta({ tool_calls: [{ index: 0, id: 'c', function: { name: 'lookup', arguments: '1}' } }] }, 'tool_calls'),
    ]);

    expect(result.toolCalls).toEqual([{ id: 'c', name: 'lookup', args: { q: 1 } }]);
  });

  it('separates calls that arrive without an index by their ids', () => {
    const { result } = assemble([
      delta({ tool_calls: [{ id: 'x', function: { name: 'a', arguments: '{}' } }] }),
      delta({ tool_calls: [{ id: 'y', function: { name: 'b', arguments: '{"n":' } }] }),
      delta({ tool_calls: [{ function: { arguments: '2}' } }] }, 'tool_calls'),
    ]);

    expect(result.toolCalls).toEqual([
      { id: 'x', name: 'a', args: {} },
      { id: 'y', name: 'b', args: { n: 2 } },
    ]);
  });

  it.each([
    ['stop', false, 'stop'],
    ['stop', true, 'tool_calls'],
    ['function_call', true, 'tool_calls'],
    ['length', false, 'length'],
    ['content_filter', false, 'content_filter'],
    ['eos', false, 'stop'],
  ] as const)('maps finish_reason %s (tool calls: %s) to %s', (raw, withToolCalls, expected) => {
    const chunks: WireChunk[] = withToolCalls ? [delta({ tool_calls: [{ index: 0, id: 'c', function: { name: 'f', arguments: '{}' } }] })] : [];
    const { result } = assemble([...chunks, delta({}, raw), { choices: [], usage: { prompt_tokens: 1, completion_tokens: 1 } }]);

    expect(result.finishReason).toBe(expected);
    if (raw === 'eos') expect(result.warnings).toEqual(['unknown finish_reason "eos" treated as "stop"']);
  });

  it('warns about truncated tool arguments under length', () => {
    const { result } = assemble([delta({ tool_calls: [{ index: 0, id: 'c', function: { name: 'f', arguments: '{"a":' } }] }, 'length')]);

    expect(result.toolCalls[0]?.argumentsError).toMatch(/not valid JSON/);
    expect(result.warnings[0]).toMatch(/while writing tool calls/);
  });

  it('reads usage from whichever chunk carries it', () => {
    const { result } = assemble([delta({ content: 'x' }, 'stop'), { choices: [], usage: { prompt_tokens: 12, completion_tokens: 3 } }]);

    expect(result.usage).toEqual({ inputTokens: 12, outputTokens: 3 });
    expect(result.warnings).toEqual([]);
  });
});
