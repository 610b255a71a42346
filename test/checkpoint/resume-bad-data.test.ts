import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createKernel, defineTool, memoryStore, readCheckpoint, RunError, sqliteStore, type CheckpointStore } from 'dualloop';
import { collectRun, manualClock, scriptedModel, type Script } from 'dualloop/testing';
import { useTempDir } from '../store/temp-dir.js';
import { FIXTURE_RUN_ID, fixtureEntries, fixtureRecord, fixtureValue, legacyStore, writeVersion1File, type EnvelopeFile } from './fixtures.js';

const directory = useTempDir('dualloop-checkpoint-');

const lookup = defineTool({
  name: 'lookup',
  description: 'looks a word up',
  parameters: z.object({ word: z.string() }),
  execute: ({ word }) => ({ word, length: word.length }),
});

// The rest of the fixture run's script, by the kernel's model-call index (restored on resume).
const REST_OF_RUN: Script = ({ index }) =>
  index === 2 ? { toolCalls: [{ name: 'lookup', args: { word: 'resume' } }] } : { text: 'resume has 6 letters' };

interface Setup {
  readonly store: CheckpointStore;
  readonly sqlitePath?: string;
}

/**
 * What the store holds for the fixture run: a single stored envelope (memory: a store of version 1;
 * SQLite: a file of schema version 1, which the store migrates when it opens it), or the version 2
 * history the kernel wrote, up to an entry.
 */
type Planted = EnvelopeFile | { readonly through: number };
let files = 0;

const STORES: readonly [string, (planted?: Planted) => Setup][] = [
  [
    'memoryStore',
    (planted) => {
      const store = memoryStore();
      if (planted === undefined) return { store };
      store.createRun(fixtureRecord());
      if (typeof planted === 'string') return { store: legacyStore(store, planted) };
      for (const entry of fixtureEntries().filter((item) => item.sequence <= planted.through)) store.saveCheckpoint(entry);
      return { store };
    },
  ],
  [
    'sqliteStore',
    (planted) => {
      const sqlitePath = join(directory(), `runs-${(files += 1)}.db`);
      if (typeof planted === 'string') writeVersion1File(sqlitePath, planted);
      const store = sqliteStore({ path: sqlitePath });
      if (typeof planted === 'object') {
        store.createRun(fixtureRecord());
        for (const entry of fixtureEntries().filter((item) => item.sequence <= planted.through)) store.saveCheckpoint(entry);
      }
      return { store, sqlitePath };
    },
  ],
];

function kernelOn(store: CheckpointStore) {
  const model = scriptedModel(REST_OF_RUN);
  return { model, kernel: createKernel({ model, tools: [lookup], store, clock: manualClock() }) };
}

async function rejection(promise: Promise<unknown>): Promise<RunError> {
  try {
    await promise;
  } catch (error) {
    return error as RunError;
  }
  throw new Error('resume succeeded');
}

describe.each(STORES)('kernel.resume on stored data (%s)', (_name, setup) => {
  it.each([
    ['corrupt-truncated.json', 'checkpoint_corrupt'],
    ['corrupt-wrong-types.json', 'checkpoint_corrupt'],
    ['future-v4.json', 'checkpoint_future_version'],
  ] as const)('refuses %s with %s and does not restart the run', async (file, code) => {
    const { store } = setup(file);
    const { kernel, model } = kernelOn(store);
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const error = await rejection(kernel.resume(FIXTURE_RUN_ID));
      expect(error).toBeInstanceOf(RunError);
      expect(error.code).toBe(code);
      expect(error.runId).toBe(FIXTURE_RUN_ID);
      expect(error.message).toContain(`run ${FIXTURE_RUN_ID}`);
    }
    expect(model.calls).toEqual([]);
    expect(await store.readEvents(FIXTURE_RUN_ID)).toEqual([]);
    expect(await store.loadResult(FIXTURE_RUN_ID)).toBeUndefined();
    store.close?.();
  });

  it('refuses a run id that does not exist', async () => {
    const { store } = setup();
    const error = await rejection(kernelOn(store).kernel.resume('no-such-run'));
    expect(error).toMatchObject({ name: 'RunError', code: 'run_not_found', runId: 'no-such-run', message: expect.stringContaining('run no-such-run does not exist') });
    expect(await store.getRun('no-such-run')).toBeUndefined();
    store.close?.();
  });

  it('refuses a run that already finished', async () => {
    const { store } = setup();
    const { kernel, model } = kernelOn(store);
    const first = await collectRun(kernel.start(['count the letters of resume'], { runId: 'done-run' }));
    expect(first.result.stop.reason).toBe('goal_achieved');
    const calls = model.calls.length;
    const events = (await store.readEvents('done-run')).length;
    const error = await rejection(kernel.resume('done-run'));
    expect(error).toMatchObject({ code: 'run_finished', runId: 'done-run', message: expect.stringContaining('already finished with goal_achieved') });
    expect(model.calls).toHaveLength(calls);
    expect(await store.readEvents('done-run')).toHaveLength(events);
    store.close?.();
  });

  it.each([
    ['version 1', 'v1-task-boundary.json'],
    ['version 2', { through: 2 }],
  ] as const)('resumes a task-boundary checkpoint (%s): the finished task is kept, only the next one runs', async (_version, planted) => {
    const { store } = setup(planted);
    const { kernel, model } = kernelOn(store);
    const { result } = await collectRun(await kernel.resume(FIXTURE_RUN_ID));
    const saved = fixtureValue('v1-task-boundary.json') as { progress: { results: unknown[] } };
    expect(result.stop.reason).toBe('goal_achieved');
    expect(result.tasks[0]).toEqual(saved.progress.results[0]);
    expect(result.tasks[1]).toMatchObject({ taskId: 'task-2', output: 'resume has 6 letters', turnCount: 2 });
    expect(model.calls.map((call) => call.index)).toEqual([2, 3]);
    store.close?.();
  });

  it.each([
    ['version 1', 'v1-mid-task.json'],
    ['version 2', { through: 3 }],
  ] as const)('resumes a mid-task checkpoint (%s) at the next turn', async (_version, planted) => {
    const { store } = setup(planted);
    const { kernel, model } = kernelOn(store);
    const { result, events } = await collectRun(await kernel.resume(FIXTURE_RUN_ID));
    expect(result.stop.reason).toBe('goal_achieved');
    expect(result.tasks[1]).toMatchObject({ taskId: 'task-2', output: 'resume has 6 letters', turnCount: 2 });
    expect(result.tasks[1]?.turns[0]?.toolCalls[0]).toMatchObject({ id: 'call_2_0', result: { word: 'resume', length: 6 } });
    expect(model.calls.map((call) => call.index)).toEqual([3]);
    expect(events[0]).toMatchObject({ type: 'workflow_start', resumed: true, seq: 26 });
    store.close?.();
  });

  it('continues the history of a resumed run after the entry it resumed from, a version 1 one included', async () => {
    for (const planted of ['v1-mid-task.json', { through: 3 }] as const) {
      const { store, sqlitePath } = setup(planted);
      // A store of version 1 keeps answering with its envelope; only a migrated file holds both.
      if (typeof planted === 'string' && sqlitePath === undefined) continue;
      await collectRun(await kernelOn(store).kernel.resume(FIXTURE_RUN_ID));
      const lines = await store.listCheckpoints(FIXTURE_RUN_ID);
      expect(lines.at(-1)).toMatchObject({ sequence: 4, kind: 'task', tasksDone: 2, version: 2 });
      const rebuilt = await readCheckpoint(store, FIXTURE_RUN_ID);
      expect(rebuilt?.progress.results.map((task) => task.output)).toEqual(['durable has 7 letters', 'resume has 6 letters']);
      store.close?.();
    }
  });
});
