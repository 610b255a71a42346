import { describe, expect, it } from 'vitest';
import { createKernel, memoryStore, sqliteStore, type CheckpointStore, type KernelEvent, type Model } from 'dualloop';
import { createStreamAssembler } from '../../src/providers/openai-stream.js';
import { useTempDir } from '../store/temp-dir.js';

// Issue 15 item 8: stream assembly is linear and streamed text is not stored delta by delta.
// No timing: the sizes are chosen so that quadratic work would far exceed vitest's test timeout.

const tempDir = useTempDir();

describe('tool-call deltas without index', () => {
  it('200 000 calls, each opened by a new id and no index, are assembled in one pass', () => {
    const assembler = createStreamAssembler(0);
    const calls = 200_000;
    for (let index = 0; index < calls; index++) {
      assembler.push({ choices: [{ delta: { tool_calls: [{ id: `call_${index}`, function: { name: 'echo', arguments: '{"n":' } }] } }] });
      assembler.push({ choices: [{ delta: { tool_calls: [{ function: { arguments: `${index}}` } }] } }] });
    }
    assembler.push({ choices: [{ delta: {}, finish_reason: 'tool_calls' }] });
    const answer = assembler.finish();
    expect(answer.toolCalls).toHaveLength(calls);
    expect(answer.toolCalls[calls - 1]).toEqual({ id: `call_${calls - 1}`, name: 'echo', args: { n: calls - 1 } });
  });

  it('a name streamed in 100 000 fragments stops growing at 1 024 characters', () => {
    const assembler = createStreamAssembler(0);
    for (let index = 0; index < 100_000; index++) assembler.push({ choices: [{ delta: { tool_calls: [{ index: 0, function: { name: `n${index % 10}` } }] } }] });
    assembler.push({ choices: [{ delta: {}, finish_reason: 'tool_calls' }] });
    expect(assembler.finish().toolCalls[0]!.name.length).toBeLessThan(1_100);
  });
});

/** A model of any provider that streams `text` as `pieces` deltas. */
function streamingModel(pieces: number, pieceLength: number): Model {
  const piece = 'abcdefghij'.repeat(Math.ceil(pieceLength / 10)).slice(0, pieceLength);
  return {
    provider: 'custom',
    modelId: 'chatty',
    call: async (request) => {
      for (let index = 0; index < pieces; index++) request.onTextDelta(piece);
      return { type: 'response', text: piece.repeat(pieces), toolCalls: [], usage: { inputTokens: 1, outputTokens: 1 }, costUsd: 0, finishReason: 'stop' };
    },
  };
}

describe('1 MB of text streamed as 100 000 deltas', () => {
  it.each([
    ['memoryStore', () => memoryStore()],
    ['sqliteStore', () => sqliteStore({ path: `${tempDir()}/runs.db` })],
  ])('is stored by %s as one message_update, while live listeners see every delta', async (_name, makeStore: () => CheckpointStore) => {
    const store = makeStore();
    const kernel = createKernel({ model: streamingModel(100_000, 10), store });
    const run = kernel.start(['talk']);
    let live = 0;
    for await (const event of run) if (event.type === 'message_update') live++;
    const result = await run.result;
    expect(result.stop.reason).toBe('goal_achieved');
    expect(live).toBe(100_000);

    const stored = await store.readEvents(run.runId);
    const updates = stored.filter((event): event is Extract<KernelEvent, { type: 'message_update' }> => event.type === 'message_update');
    expect(updates).toHaveLength(1);
    expect(updates[0]!.delta).toHaveLength(1_000_000);
    const seqs = stored.map((event) => event.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(stored.at(-1)!.type).toBe('workflow_end');
    (store as { close?: () => unknown }).close?.();
  });
});
