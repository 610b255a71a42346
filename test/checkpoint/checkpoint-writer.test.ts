import { describe, expect, it } from 'vitest';
import { createKernel, memoryStore, readCheckpoint, type CheckpointEntry, type CheckpointStore } from 'dualloop';
import { collectRun, manualClock, scriptedModel, type Script } from 'dualloop/testing';
import { countingTool } from '../support/kernel-fixtures.js';

/*
 * The checkpoint writer (src/checkpoint/checkpoint-writer.ts) owns the order of a run's entries:
 * an asynchronous store gets them one at a time, and a failed write leaves the history as it was,
 * so that the next entry is still the change from what the store holds.
 */

// Two turns per task: a tool call, then the answer.
const SCRIPT: Script = ({ index }) => (index % 2 === 0 ? { toolCalls: [{ name: 'step', args: { n: index } }] } : { text: `answer ${index}` });
const TASKS = ['first', 'second', 'third'];

const pause = () => new Promise<void>((resolve) => setTimeout(resolve, Math.floor(Math.random() * 3)));

/**
 * The memory store behind promises (as a network store answers); checkpoint writes settle after
 * a random pause, and the wrapper counts how many are in flight at once.
 */
function asynchronous(store: ReturnType<typeof memoryStore>) {
  let inFlight = 0;
  let most = 0;
  const wrapped = Object.fromEntries(
    Object.entries(store).map(([name, value]) => [name, typeof value === 'function' ? async (...args: unknown[]) => (value as (...a: unknown[]) => unknown)(...args) : value]),
  ) as unknown as CheckpointStore;
  return {
    most: () => most,
    store: {
      ...wrapped,
      async saveCheckpoint(entry: CheckpointEntry) {
        inFlight += 1;
        most = Math.max(most, inFlight);
        await pause();
        store.saveCheckpoint(entry);
        inFlight -= 1;
      },
    } as CheckpointStore,
  };
}

describe('the checkpoint writer', () => {
  it('hands an asynchronous store one entry at a time, in order, and the history rebuilds the run', async () => {
    const memory = memoryStore();
    const { store, most } = asynchronous(memory);
    const kernel = createKernel({ model: scriptedModel(SCRIPT), tools: [countingTool().tool], store, clock: manualClock() });
    const { result } = await collectRun(kernel.start(TASKS, { runId: 'async-run' }));
    expect(result.stop, JSON.stringify(result.stop)).toMatchObject({ reason: 'goal_achieved' });
    expect(most()).toBe(1);
    const lines = memory.listCheckpoints('async-run');
    expect(lines.map((line) => line.sequence)).toEqual(lines.map((_, index) => index + 1));
    expect(lines.map((line) => line.kind)).toEqual(['turn', 'task', 'turn', 'task', 'turn', 'task']);
    expect((await readCheckpoint(memory, 'async-run'))?.progress.results).toEqual(result.tasks);
  });

  it('after a failed write, the next entry describes the change from what the store holds', async () => {
    const memory = memoryStore();
    let calls = 0;
    const failing: CheckpointStore = {
      ...memory,
      saveCheckpoint(entry) {
        calls += 1;
        if (calls === 3) throw new Error('disk full');
        memory.saveCheckpoint(entry);
      },
    };
    const uninterrupted = await collectRun(createKernel({ model: scriptedModel(SCRIPT), tools: [countingTool().tool], clock: manualClock() }).start(TASKS));

    const kernel = createKernel({ model: scriptedModel(SCRIPT), tools: [countingTool().tool], store: failing, clock: manualClock() });
    const first = await collectRun(kernel.start(TASKS, { runId: 'failing-run' }));
    expect(first.result.stop).toMatchObject({ reason: 'error', detail: expect.stringContaining('disk full') });
    expect(memory.listCheckpoints('failing-run').map((line) => [line.sequence, line.kind])).toEqual([
      [1, 'turn'],
      [2, 'task'],
      [3, 'task'],
    ]);

    const resumed = await collectRun(await kernel.resume('failing-run'));
    expect(resumed.result.stop.reason).toBe('goal_achieved');
    expect(resumed.result.tasks.map((task) => task.output)).toEqual(uninterrupted.result.tasks.map((task) => task.output));
    expect(resumed.result.metrics).toEqual(uninterrupted.result.metrics);
    const lines = memory.listCheckpoints('failing-run');
    expect(lines.map((line) => line.sequence)).toEqual(lines.map((_, index) => index + 1));
    expect((await readCheckpoint(memory, 'failing-run'))?.progress.results).toEqual(resumed.result.tasks);
  });
});
