import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { createKernel, defineTool, memoryStore, type CheckpointEntry, type EphemeralMessages } from 'dualloop';
import { collectRun, scriptedModel } from 'dualloop/testing';

const clockTool = defineTool({ name: 'now', description: 'the time', parameters: z.object({}), execute: () => 'noon' });

/** A memory store that also hands every checkpoint entry it was given to the test. */
function recordingStore() {
  const store = memoryStore();
  const saved: CheckpointEntry[] = [];
  return {
    saved,
    store: {
      ...store,
      saveCheckpoint(entry: CheckpointEntry) {
        saved.push(entry);
        return store.saveCheckpoint(entry);
      },
    },
  };
}

describe('ephemeralMessages', () => {
  it('are appended to each model call only, and never reach the transcript, the result or the store', async () => {
    const ephemeralMessages: EphemeralMessages = ({ turn }) => [{ role: 'user', content: `EPHEMERAL turn ${turn}`, source: 'ephemeral' }];
    const { store, saved } = recordingStore();
    const model = scriptedModel([{ toolCalls: [{ name: 'now' }] }, { text: 'it is noon' }]);
    const run = createKernel({ model, tools: [clockTool], ephemeralMessages, store }).start(['what time is it?']);
    const { events, result } = await collectRun(run);

    // Seen by the model, at the end of its messages, each call with its own.
    expect(model.calls[0]!.messages.at(-1)).toEqual({ role: 'user', content: 'EPHEMERAL turn 1', source: 'ephemeral' });
    expect(model.calls[1]!.messages.at(-1)).toEqual({ role: 'user', content: 'EPHEMERAL turn 2', source: 'ephemeral' });
    expect(JSON.stringify(model.calls[1]!.messages)).not.toContain('EPHEMERAL turn 1');

    // Absent from everything kept: the turn checkpoint's transcript, the result, the event log.
    const turnCheckpoints = saved.filter((entry) => entry.kind === 'turn');
    expect(turnCheckpoints.length).toBeGreaterThan(0);
    expect(turnCheckpoints[0]!.change.active!.messages.length).toBeGreaterThan(1);
    expect(JSON.stringify(saved)).not.toContain('EPHEMERAL');
    expect(JSON.stringify(result)).not.toContain('EPHEMERAL');
    expect(JSON.stringify(await store.readEvents(run.runId))).not.toContain('EPHEMERAL');
    expect(JSON.stringify(events)).not.toContain('EPHEMERAL');
  });

  it('errors are ignored: the call goes ahead without them and a warning is reported', async () => {
    const ephemeralMessages: EphemeralMessages = () => {
      throw new Error('context source down');
    };
    const model = scriptedModel([{ text: 'fine' }]);
    const { events, result } = await collectRun(createKernel({ model, ephemeralMessages }).start(['hi']));

    expect(result.tasks[0]!.stop.reason).toBe('planner_stopped');
    expect(model.calls[0]!.messages).toEqual([{ role: 'user', content: 'hi', source: 'task' }]);
    expect(events.some((event) => event.type === 'warning' && event.message.includes('context source down'))).toBe(true);
  });
});
