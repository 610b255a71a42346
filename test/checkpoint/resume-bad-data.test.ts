import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createKernel, defineTool, memoryStore, RunError, sqliteStore, type CheckpointStore } from 'dualloop';
import { collectRun, manualClock, scriptedModel, type Script } from 'dualloop/testing';
import { useTempDir } from '../store/temp-dir.js';
import { FIXTURE_RUN_ID, fixtureRecord, fixtureValue, plantCheckpoint, type FixtureFile } from './fixtures.js';

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

const STORES: readonly [string, () => Setup][] = [
  ['memoryStore', () => ({ store: memoryStore() })],
  [
    'sqliteStore',
    () => {
      const sqlitePath = join(directory(), 'runs.db');
      return { store: sqliteStore({ path: sqlitePath }), sqlitePath };
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
  function withFixture(file: FixtureFile): Setup {
    const prepared = setup();
    prepared.store.createRun(fixtureRecord());
    return { ...prepared, store: plantCheckpoint(prepared.store, file, prepared.sqlitePath) };
  }

  it.each([
    ['corrupt-truncated.json', 'checkpoint_corrupt'],
    ['corrupt-wrong-types.json', 'checkpoint_corrupt'],
    ['future-v2.json', 'checkpoint_future_version'],
  ] as const)('refuses %s with %s and does not restart the run', async (file, code) => {
    const { store } = withFixture(file);
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

  it('resumes a task-boundary checkpoint: the finished task is kept, only the next one runs', async () => {
    const { store } = withFixture('v1-task-boundary.json');
    const { kernel, model } = kernelOn(store);
    const { result } = await collectRun(await kernel.resume(FIXTURE_RUN_ID));
    const saved = fixtureValue('v1-task-boundary.json') as { progress: { results: unknown[] } };
    expect(result.stop.reason).toBe('goal_achieved');
    expect(result.tasks[0]).toEqual(saved.progress.results[0]);
    expect(result.tasks[1]).toMatchObject({ taskId: 'task-2', output: 'resume has 6 letters', turnCount: 2 });
    expect(model.calls.map((call) => call.index)).toEqual([2, 3]);
    store.close?.();
  });

  it('resumes a mid-task checkpoint at the next turn', async () => {
    const { store } = withFixture('v1-mid-task.json');
    const { kernel, model } = kernelOn(store);
    const { result, events } = await collectRun(await kernel.resume(FIXTURE_RUN_ID));
    expect(result.stop.reason).toBe('goal_achieved');
    expect(result.tasks[1]).toMatchObject({ taskId: 'task-2', output: 'resume has 6 letters', turnCount: 2 });
    expect(result.tasks[1]?.turns[0]?.toolCalls[0]).toMatchObject({ id: 'call_2_0', result: { word: 'resume', length: 6 } });
    expect(model.calls.map((call) => call.index)).toEqual([3]);
    expect(events[0]).toMatchObject({ type: 'workflow_start', resumed: true, seq: 26 });
    store.close?.();
  });
});
