import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createKernel, memoryStore } from 'dualloop';
import { scriptedModel, type ScriptStep } from 'dualloop/testing';
import { useTempDir } from '../store/temp-dir.js';
import { heldTool, noteTool, sideFile } from './fork-helpers.js';

const noting = (text: string): ScriptStep => ({ toolCalls: [{ name: 'note', args: { text } }] });

describe('fork lineage and sources in any state', () => {
  const directory = useTempDir('dualloop-fork-');

  it('forks a fork, after its point (its own history) and before it (its parent\'s)', async () => {
    const store = memoryStore();
    const file = join(directory(), 'notes.txt');
    // Tasks: 2 turns, 2 turns, 2 turns.
    const steps = (prefix: string): ScriptStep[] => [noting(`${prefix}0`), { text: `${prefix}-one` }, noting(`${prefix}2`), { text: `${prefix}-two` }, noting(`${prefix}4`), { text: `${prefix}-three` }];
    await createKernel({ model: scriptedModel(steps('a')), tools: [noteTool(file)], store }).start(['x', 'y', 'z'], { runId: 'source' }).result;

    const first = await (await createKernel({ model: scriptedModel(steps('b')), tools: [noteTool(file)], store }).fork('source', { at: { task: 2, turn: 2 }, runId: 'fork-1' })).result;
    expect(first.tasks.map((task) => task.output)).toEqual(['a-one', 'b-two', 'b-three']);

    const afterPoint = scriptedModel(steps('c'));
    const second = await (await createKernel({ model: afterPoint, tools: [noteTool(file)], store }).fork('fork-1', { at: { task: 3, turn: 2 }, runId: 'fork-2' })).result;
    expect(second.tasks.map((task) => task.output)).toEqual(['a-one', 'b-two', 'c-three']);
    expect(afterPoint.calls.map((call) => call.index)).toEqual([5]);
    // Turn 1 of task 3 in fork-2 is fork-1's record: its note came from fork-1's model, and did not run again.
    expect(second.tasks[2]!.turns[0]!.toolCalls[0]!.args).toEqual({ text: 'b4' });

    const beforePoint = scriptedModel(steps('d'));
    const third = await (await createKernel({ model: beforePoint, tools: [noteTool(file)], store }).fork('fork-1', { at: { task: 1, turn: 2 }, runId: 'fork-3' })).result;
    expect(third.tasks.map((task) => task.output)).toEqual(['d-one', 'd-two', 'd-three']);
    expect(third.tasks[0]!.turns[0]!.toolCalls[0]!.args).toEqual({ text: 'a0' });
    expect(beforePoint.calls[0]!.index).toBe(1);
    expect(sideFile(file)).toEqual(['a0', 'a2', 'a4', 'b4', 'd2', 'd4']);

    expect((await store.getRun('fork-2'))?.forkOf).toEqual({ runId: 'fork-1', at: { task: 3, turn: 2 } });
    expect((await store.audit('fork-3'))?.forkOf).toEqual({ runId: 'fork-1', at: { task: 1, turn: 2 } });
    const listed = new Map((await store.listRuns()).map((run) => [run.runId, run.forkOf?.runId]));
    expect(Object.fromEntries(listed)).toEqual({ source: undefined, 'fork-1': 'source', 'fork-2': 'fork-1', 'fork-3': 'fork-1' });

    // A point that neither the fork nor its parent has is named with both ranges.
    const missing = await createKernel({ model: scriptedModel([]), store }).fork('fork-1', { at: { task: 2, turn: 5 } }).catch((error: unknown) => error);
    expect(missing).toMatchObject({ code: 'fork_point_not_found' });
    expect((missing as Error).message).toContain('before its own point 2:2, those of source');
  });

  it('forks a run while it still runs: from what it recorded, without holding it up', async () => {
    const store = memoryStore();
    const { tool: wait, release } = heldTool();
    const file = join(directory(), 'notes.txt');
    const source = createKernel({ model: scriptedModel([noting('s0'), { toolCalls: [{ name: 'wait', args: {} }] }, { text: 'source done' }]), tools: [noteTool(file), wait], store });
    const running = source.start(['work'], { runId: 'source' });
    // Turn 1 is recorded once its checkpoint event is out; turn 2 then waits on the tool.
    for await (const event of running) if (event.type === 'checkpoint_saved') break;

    const forkModel = scriptedModel([noting('f0'), { text: 'fork done' }]);
    const fork = await (await createKernel({ model: forkModel, tools: [noteTool(file), wait], store }).fork('source', { at: { task: 1, turn: 2 } })).result;
    expect(fork.stop.reason).toBe('goal_achieved');
    expect(fork.tasks[0]!.output).toBe('fork done');
    expect(fork.tasks[0]!.turns[0]!.toolCalls[0]!.args).toEqual({ text: 's0' });
    expect(await store.loadResult('source')).toBeUndefined();

    release();
    const done = await running.result;
    expect(done.stop.reason).toBe('goal_achieved');
    expect(done.tasks[0]!.output).toBe('source done');
    expect(sideFile(file)).toEqual(['s0']);
  });

  it('forks failed and cancelled runs like finished ones', async () => {
    const store = memoryStore();
    const file = join(directory(), 'notes.txt');
    const failed = await createKernel({ model: scriptedModel([noting('f0'), { error: 'provider down' }]), tools: [noteTool(file)], store }).start(['w'], { runId: 'failed' }).result;
    expect(failed.stop.reason).toBe('error');
    const retry = await (await createKernel({ model: scriptedModel([noting('x'), { text: 'recovered' }]), tools: [noteTool(file)], store }).fork('failed', { at: { task: 1, turn: 2 } })).result;
    expect(retry.stop.reason).toBe('goal_achieved');
    expect(retry.tasks[0]!.turns.map((turn) => turn.turn)).toEqual([1, 2]);

    const controller = new AbortController();
    const cancelling = createKernel({ model: scriptedModel([noting('c0'), { text: 'never', delayMs: 60_000 }]), tools: [noteTool(file)], store });
    const run = cancelling.start(['w'], { runId: 'cancelled', signal: controller.signal });
    for await (const event of run) if (event.type === 'checkpoint_saved') controller.abort();
    expect((await run.result).stop.reason).toBe('context_canceled');
    const fork = await (await createKernel({ model: scriptedModel([noting('x'), { text: 'finished' }]), tools: [noteTool(file)], store }).fork('cancelled', { at: { task: 1, turn: 2 } })).result;
    expect(fork.stop.reason).toBe('goal_achieved');
    expect(sideFile(file)).toEqual(['f0', 'c0']);
  });
});
