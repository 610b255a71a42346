import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createKernel, memoryStore, type CheckpointStore, type ForkPoint } from 'dualloop';
import { collectRun, manualClock, scriptedModel, type ScriptStep } from 'dualloop/testing';
import { useTempDir } from '../store/temp-dir.js';
import { comparable, noteTool, sideFile } from './fork-helpers.js';

/*
 * A 3-task run, 8 model calls: task 1 = note, note, answer; task 2 = note, answer;
 * task 3 = note, note, answer. Every note names the model call that asked for it.
 */
const note = (index: number, prefix: string): ScriptStep => ({ toolCalls: [{ name: 'note', args: { text: `${prefix} ${index}` } }], usage: { inputTokens: 10 + index, outputTokens: 3 } });
const answer = (index: number, prefix: string): ScriptStep => ({ text: `${prefix} answer ${index}`, usage: { inputTokens: 20 + index, outputTokens: 5 } });
const SHAPE = ['note', 'note', 'answer', 'note', 'answer', 'note', 'note', 'answer'] as const;
const original = (index: number): ScriptStep | undefined => (SHAPE[index] === undefined ? undefined : SHAPE[index] === 'note' ? note(index, 'a') : answer(index, 'a'));
/** From `from` on, the model answers differently: it notes once more and answers, in every task. */
const different = (from: number) => (call: { index: number }): ScriptStep => {
  if (call.index < from) return original(call.index) ?? { error: 'script exhausted' };
  return (call.index - from) % 2 === 0 ? note(call.index, 'b') : answer(call.index, 'b');
};

/** Every point of the run, with the number of model calls made before it. */
const POINTS: readonly { at: ForkPoint; callsBefore: number }[] = [
  { at: { task: 1 }, callsBefore: 0 },
  { at: { task: 1, turn: 2 }, callsBefore: 1 },
  { at: { task: 1, turn: 3 }, callsBefore: 2 },
  { at: { task: 2 }, callsBefore: 3 },
  { at: { task: 2, turn: 2 }, callsBefore: 4 },
  { at: { task: 3 }, callsBefore: 5 },
  { at: { task: 3, turn: 2 }, callsBefore: 6 },
  { at: { task: 3, turn: 3 }, callsBefore: 7 },
];

const TASKS = ['first task', 'second task', 'third task'];

async function snapshotOf(store: CheckpointStore, runId: string) {
  return JSON.stringify([await store.getRun(runId), await store.listCheckpoints(runId), await store.readEvents(runId), await store.loadResult(runId)]);
}

describe('fork at every point of a 3-task run', () => {
  const directory = useTempDir('dualloop-fork-');

  it('equals an uninterrupted run whose model answers differently from the point; nothing before it runs again', async () => {
    const store = memoryStore();
    const sourceFile = join(directory(), 'source.txt');
    const sourceModel = scriptedModel((call) => original(call.index) ?? { error: 'script exhausted' });
    const source = createKernel({ model: sourceModel, tools: [noteTool(sourceFile)], store, clock: manualClock() });
    const sourceResult = await source.start(TASKS, { runId: 'source' }).result;
    expect(sourceResult.stop.reason).toBe('goal_achieved');
    expect(sourceResult.metrics.turns).toBe(8);
    expect(sideFile(sourceFile)).toEqual(['a 0', 'a 1', 'a 3', 'a 5', 'a 6']);
    const before = await snapshotOf(store, 'source');

    for (const [position, { at, callsBefore }] of POINTS.entries()) {
      // The reference: the whole run again, uninterrupted, with the model that answers differently from the point.
      const referenceFile = join(directory(), `reference-${position}.txt`);
      const referenceModel = scriptedModel(different(callsBefore));
      const reference = await createKernel({ model: referenceModel, tools: [noteTool(referenceFile)], store: memoryStore(), clock: manualClock() }).start(TASKS).result;

      const forkFile = join(directory(), `fork-${position}.txt`);
      const forkModel = scriptedModel(different(callsBefore));
      const forkKernel = createKernel({ model: forkModel, tools: [noteTool(forkFile)], store, clock: manualClock() });
      const { result, events } = await collectRun(await forkKernel.fork('source', { at, runId: `fork-${position}` }));

      const point = `${at.task}:${at.turn ?? 1}`;
      expect(comparable(result), point).toEqual(comparable(reference));
      // The model was called only from the point on, and only as often as the reference called it from there.
      expect(forkModel.calls.map((call) => call.index), point).toEqual(referenceModel.calls.map((call) => call.index).filter((index) => index >= callsBefore));
      // No tool recorded before the point ran again; those from the point on ran, fresh.
      const fromPoint = sideFile(referenceFile).filter((line) => Number(line.split(' ')[1]) >= callsBefore);
      expect(sideFile(forkFile), point).toEqual(fromPoint);
      expect(events[0], point).toMatchObject({ type: 'workflow_start', resumed: false, forkOf: { runId: 'source', at } });
      expect(await store.getRun(`fork-${position}`), point).toMatchObject({ forkOf: { runId: 'source', at } });
    }
    expect(sideFile(sourceFile)).toEqual(['a 0', 'a 1', 'a 3', 'a 5', 'a 6']);
    expect(await snapshotOf(store, 'source')).toBe(before);
  });

  it('names every valid point when asked for one that does not exist', async () => {
    const store = memoryStore();
    const kernel = createKernel({ model: scriptedModel((call) => original(call.index) ?? { error: 'script exhausted' }), tools: [noteTool(join(directory(), 'n.txt'))], store, clock: manualClock() });
    await kernel.start(TASKS, { runId: 'source' }).result;
    for (const at of [{ task: 4 }, { task: 1, turn: 4 }, { task: 2, turn: 3 }]) {
      const error = await kernel.fork('source', { at }).then(
        () => undefined,
        (failure: unknown) => failure as { code?: string; message: string },
      );
      expect(error?.code).toBe('fork_point_not_found');
      expect(error?.message).toContain('task 1 (turns 1–3), task 2 (turns 1–2), task 3 (turns 1–3)');
    }
    expect((await store.listRuns()).map((run) => run.runId)).toEqual(['source']);
  });
});
