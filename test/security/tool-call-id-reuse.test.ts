import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createKernel, defineTool, memoryStore } from 'dualloop';
import { scriptedModel } from 'dualloop/testing';

/*
 * ADR 0304: a model's tool-call ids are untrusted. A server that answers `call_0` on every turn
 * made a resume replay an earlier call's recorded result for a later call: an approved `deploy`
 * never ran and the model was told it returned the file read two turns before. Two calls of one
 * answer with the same id shared one record and one event pair.
 */

function tools() {
  const deployed: string[] = [];
  const read = defineTool({ name: 'read', description: 'Reads.', parameters: z.object({ file: z.string() }), execute: ({ file }) => `contents of ${file}` });
  const deploy = defineTool({ name: 'deploy', description: 'Deploys.', parameters: z.object({ service: z.string() }), execute: ({ service }) => (deployed.push(service), `deployed ${service}`) });
  return { deployed, list: [read, deploy] };
}

describe('a model that reuses tool-call ids', () => {
  it('a resume replays only the call recorded at the same place: the approved call with a reused id runs', async () => {
    const { deployed, list } = tools();
    const store = memoryStore();
    const model = scriptedModel([
      { toolCalls: [{ id: 'call_0', name: 'read', args: { file: 'notes.txt' } }] },
      { toolCalls: [{ id: 'call_0', name: 'deploy', args: { service: 'api' } }] },
      { text: 'done' },
    ]);
    const policy = { checkToolCall: ({ name }: { name: string }) => (name === 'deploy' ? { decision: 'require_approval' as const, reason: 'a human decides' } : { decision: 'allow' as const }) };
    const kernel = createKernel({ model, store, tools: list, policy });
    expect((await kernel.start(['ship'], { runId: 'reused' }).result).stop.reason).toBe('awaiting_approval');

    const resumed = await (await kernel.resume('reused', { approvals: { call_0: 'approve' } })).result;
    expect(resumed.stop.reason).toBe('goal_achieved');
    expect(deployed).toEqual(['api']);
    expect(resumed.tasks[0]!.turns[1]!.toolCalls[0]).toMatchObject({ name: 'deploy', result: 'deployed api', isError: false });
  });

  it('two calls of one answer with the same id get ids of their own', async () => {
    const { list } = tools();
    const store = memoryStore();
    const model = scriptedModel([
      { toolCalls: [{ id: 'same', name: 'read', args: { file: 'a' } }, { id: 'same', name: 'read', args: { file: 'b' } }] },
      { text: 'done' },
    ]);
    const run = createKernel({ model, store, tools: list }).start(['read both']);
    const result = await run.result;
    const calls = result.tasks[0]!.turns[0]!.toolCalls;
    expect(calls.map((call) => [call.id, call.result])).toEqual([
      ['same', 'contents of a'],
      ['same~1', 'contents of b'],
    ]);
    const ended = (await store.readEvents(run.runId)).flatMap((event) => (event.type === 'tool_execution_end' ? [event.toolCallId] : []));
    expect(ended).toEqual(['same', 'same~1']);
  });
});
