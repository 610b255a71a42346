import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createKernel, memoryStore, postgresStore, sqliteStore, type CheckpointStore, type ForkPoint, type TaskInput } from 'dualloop';
import { collectRun, manualClock, scriptedModel, type ScriptStep } from 'dualloop/testing';
import { postgresUrl, useSchemas } from '../support/postgres.js';
import { useTempDir } from '../store/temp-dir.js';
import { comparable, noteTool, sideFile } from './fork-helpers.js';

/*
 * Issue 21's check with a workflow of another shape than fork-every-point.test.ts, on every store:
 * task 1 (its own bounds) makes two tool calls in one turn, then one, then answers; task 2 answers
 * at once; task 3 calls a tool three times, one per turn, then answers: 8 model calls, 8 points.
 * Each fork must equal a run of the whole workflow, uninterrupted, whose model answers differently
 * from the point on — and the fork's first model call must see the very messages the reference's did.
 */

type Step = 'pair' | 'one' | 'answer';
const SHAPE: readonly Step[] = ['pair', 'one', 'answer', 'answer', 'one', 'one', 'one', 'answer'];
const usage = (index: number) => ({ inputTokens: 100 + index * 7, outputTokens: 5 + index });

function step(kind: Step, index: number, prefix: string): ScriptStep {
  const note = (k: number) => ({ name: 'note', args: { text: `${prefix}${index}.${k}` }, id: `${prefix}-call-${index}-${k}` });
  if (kind === 'pair') return { text: `thinking ${prefix}${index}`, toolCalls: [note(0), note(1)], usage: usage(index) };
  if (kind === 'one') return { toolCalls: [note(0)], usage: usage(index) };
  return { text: `${prefix} answer ${index}`, usage: usage(index) };
}
const original = (call: { index: number }): ScriptStep => {
  const kind = SHAPE[call.index];
  return kind === undefined ? { error: 'script exhausted' } : step(kind, call.index, 'a');
};
/** From `from` on: in each task one tool call, then the answer (other arguments, other usage). */
const different = (from: number) => {
  let inTask = 0;
  return (call: { index: number; messages: readonly { role: string }[] }): ScriptStep => {
    if (call.index < from) return original(call);
    // A fresh task's transcript holds no assistant message yet.
    if (!call.messages.some((message) => message.role === 'assistant')) inTask = 0;
    inTask += 1;
    return step(inTask === 1 ? 'one' : 'answer', call.index, 'b');
  };
};

const POINTS: readonly { at: ForkPoint; callsBefore: number }[] = [
  { at: { task: 1 }, callsBefore: 0 },
  { at: { task: 1, turn: 2 }, callsBefore: 1 },
  { at: { task: 1, turn: 3 }, callsBefore: 2 },
  { at: { task: 2 }, callsBefore: 3 },
  { at: { task: 3 }, callsBefore: 4 },
  { at: { task: 3, turn: 2 }, callsBefore: 5 },
  { at: { task: 3, turn: 3 }, callsBefore: 6 },
  { at: { task: 3, turn: 4 }, callsBefore: 7 },
];
const TASKS: TaskInput[] = [{ id: 'collect', description: 'collect notes', bounds: { maxTurns: 5 } }, 'summarise', 'publish'];

const schema = useSchemas('fork_points');
const opened: CheckpointStore[] = [];
afterAll(async () => {
  for (const store of opened) await (store as { close?: () => unknown }).close?.();
});

describe.each([
  ['memoryStore', () => memoryStore()],
  ['sqliteStore', (directory: string) => sqliteStore({ path: join(directory, 'runs.db') })],
  ['postgresStore', () => postgresStore({ connectionString: postgresUrl() }, { schema: schema(), maxConnections: 2 })],
] as const)('fork at every point of another 3-task workflow, on %s', (_name, makeStore) => {
  const directory = useTempDir('dualloop-fork-stores-');

  it('equals a run answering differently from the point, runs nothing before it again, and calls the model from the point on only', async () => {
    const store = makeStore(directory());
    opened.push(store);
    const sourceFile = join(directory(), 'source.txt');
    const source = await createKernel({ model: scriptedModel(original), tools: [noteTool(sourceFile)], store, clock: manualClock() }).start(TASKS, { runId: 'source' }).result;
    expect(source.stop.reason).toBe('goal_achieved');
    expect(source.tasks.map((task) => task.turnCount)).toEqual([3, 1, 4]);
    const sourceNotes = sideFile(sourceFile);
    expect(sourceNotes).toEqual(['a0.0', 'a0.1', 'a1.0', 'a4.0', 'a5.0', 'a6.0']);
    const sourceHistory = JSON.stringify(await store.listCheckpoints('source'));

    for (const [position, { at, callsBefore }] of POINTS.entries()) {
      const point = `${at.task}:${at.turn ?? 1}`;
      const referenceFile = join(directory(), `reference-${position}.txt`);
      const referenceModel = scriptedModel(different(callsBefore));
      const reference = await createKernel({ model: referenceModel, tools: [noteTool(referenceFile)], store: memoryStore(), clock: manualClock() }).start(TASKS).result;

      const forkFile = join(directory(), `fork-${position}.txt`);
      const forkModel = scriptedModel(different(callsBefore));
      const fork = await createKernel({ model: forkModel, tools: [noteTool(forkFile)], store, clock: manualClock() }).fork('source', { at, runId: `fork-${position}` });
      const { result } = await collectRun(fork);

      expect(comparable(result), point).toEqual(comparable(reference));
      expect(forkModel.calls.map((call) => call.index), point).toEqual(referenceModel.calls.map((call) => call.index).filter((index) => index >= callsBefore));
      // The first call of the fork sees exactly what the uninterrupted run's call at that index saw.
      expect(forkModel.calls[0]?.messages, point).toEqual(referenceModel.calls[callsBefore]?.messages);
      const fromPoint = sideFile(referenceFile).filter((line) => Number(line.slice(1).split('.')[0]) >= callsBefore);
      expect(sideFile(forkFile), point).toEqual(fromPoint);
      expect(await store.getRun(`fork-${position}`), point).toMatchObject({ forkOf: { runId: 'source', at } });
      expect((await store.loadResult(`fork-${position}`))?.stop, point).toEqual(result.stop);
    }
    expect(sideFile(sourceFile)).toEqual(sourceNotes);
    expect(JSON.stringify(await store.listCheckpoints('source'))).toBe(sourceHistory);
  });
});
