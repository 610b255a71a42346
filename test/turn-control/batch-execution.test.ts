import { describe, expect, it } from 'vitest';
import { createKernel } from 'dualloop';
import { collectRun, scriptedModel } from 'dualloop/testing';
import { sleeperTool, type Timeline } from './helpers.js';

describe('toolExecution: batch (the default)', () => {
  it('runs the parallel-marked calls together and starts a sequential call only after they finished', async () => {
    const timeline: Timeline = [];
    const fetchTool = sleeperTool('fetch', timeline, 'parallel');
    const write = sleeperTool('write', timeline);
    const model = scriptedModel([
      {
        toolCalls: [
          { name: 'fetch', args: { ms: 40, label: 'a' }, id: 'f1' },
          { name: 'fetch', args: { ms: 20, label: 'b' }, id: 'f2' },
          { name: 'fetch', args: { ms: 30, label: 'c' }, id: 'f3' },
          { name: 'write', args: { ms: 1, label: 'w' }, id: 'w1' },
          { name: 'fetch', args: { ms: 1, label: 'd' }, id: 'f4' },
        ],
      },
      { text: 'done' },
    ]);
    const { result } = await collectRun(createKernel({ model, tools: [fetchTool, write] }).start(['fetch then write']));

    // f1–f3 all start before any of them ends; the write starts only after all three ended;
    // the fetch after the write is a new group and waits for it.
    expect(timeline.slice(0, 3).sort()).toEqual(['start:f1', 'start:f2', 'start:f3']);
    expect(timeline.slice(3, 6).sort()).toEqual(['end:f1', 'end:f2', 'end:f3']);
    expect(timeline.slice(6)).toEqual(['start:w1', 'end:w1', 'start:f4', 'end:f4']);
    expect(result.tasks[0]!.turns[0]!.toolCalls.map((call) => call.result)).toEqual(['a', 'b', 'c', 'w', 'd']);
  });

  it('runs calls to sequential tools one by one, in source order', async () => {
    const timeline: Timeline = [];
    const write = sleeperTool('write', timeline);
    const model = scriptedModel([
      { toolCalls: [30, 10, 20].map((ms, index) => ({ name: 'write', args: { ms, label: `w${index}` }, id: `w${index}` })) },
      { text: 'done' },
    ]);
    await collectRun(createKernel({ model, tools: [write] }).start(['write']));
    expect(timeline).toEqual(['start:w0', 'end:w0', 'start:w1', 'end:w1', 'start:w2', 'end:w2']);
  });
});

describe('toolExecution: sequential', () => {
  it('runs even parallel-marked tools one at a time, in source order', async () => {
    const timeline: Timeline = [];
    const fetchTool = sleeperTool('fetch', timeline, 'parallel');
    const model = scriptedModel([
      { toolCalls: [30, 10, 20].map((ms, index) => ({ name: 'fetch', args: { ms, label: `f${index}` }, id: `f${index}` })) },
      { text: 'done' },
    ]);
    const { result } = await collectRun(createKernel({ model, tools: [fetchTool], toolExecution: 'sequential' }).start(['fetch']));
    expect(timeline).toEqual(['start:f0', 'end:f0', 'start:f1', 'end:f1', 'start:f2', 'end:f2']);
    expect(result.tasks[0]!.turns[0]!.toolCalls.map((call) => call.result)).toEqual(['f0', 'f1', 'f2']);
  });
});
