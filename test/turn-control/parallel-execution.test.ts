import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { createKernel } from 'dualloop';
import { collectRun, scriptedModel } from 'dualloop/testing';
import { sleeperTool, toolMessages, type Timeline } from './helpers.js';

const SIX = [0, 1, 2, 3, 4, 5];

describe('toolExecution: parallel', () => {
  it('runs six 100 ms tools at once: the batch takes well under 600 ms', async () => {
    const timeline: Timeline = [];
    const times: number[] = [];
    const nap = sleeperTool('nap', timeline);
    const model = scriptedModel([{ toolCalls: SIX.map((index) => ({ name: 'nap', args: { ms: 100, label: `r${index}` } })) }, { text: 'done' }]);
    const run = createKernel({ model, tools: [nap], toolExecution: 'parallel' }).start(['nap six times']);
    const events = [];
    for await (const event of run) {
      events.push(event);
      if (event.type === 'tool_execution_start' || event.type === 'tool_execution_end') times.push(performance.now());
    }
    const result = await run.result;

    expect(result.tasks[0]!.stop.reason).toBe('planner_stopped');
    // Every call started before any ended: they ran together.
    expect(timeline.slice(0, 6).every((entry) => entry.startsWith('start:'))).toBe(true);
    const elapsed = Math.max(...times) - Math.min(...times);
    expect(elapsed).toBeLessThan(450);
    expect(result.tasks[0]!.turns[0]!.toolCalls.map((call) => call.result)).toEqual(SIX.map((index) => `r${index}`));
  });

  it('returns results in source order even when the calls finish in reverse', async () => {
    const timeline: Timeline = [];
    const nap = sleeperTool('nap', timeline);
    // The first call sleeps longest, so the calls finish last-to-first.
    const model = scriptedModel([
      { toolCalls: SIX.map((index) => ({ name: 'nap', args: { ms: 60 - index * 10, label: `r${index}` }, id: `c${index}` })) },
      { text: 'done' },
    ]);
    const { events, result } = await collectRun(createKernel({ model, tools: [nap], toolExecution: 'parallel' }).start(['nap']));

    const ends = timeline.filter((entry) => entry.startsWith('end:'));
    expect(ends).toEqual(['end:c5', 'end:c4', 'end:c3', 'end:c2', 'end:c1', 'end:c0']);
    // The turn, the transcript the model sees next, and nothing else reorders them.
    expect(result.tasks[0]!.turns[0]!.toolCalls.map((call) => call.id)).toEqual(['c0', 'c1', 'c2', 'c3', 'c4', 'c5']);
    expect(toolMessages(model.calls[1]!.messages)).toEqual(SIX.map((index) => [`c${index}`, `r${index}`]));
    // Events report completion as it happened.
    const endEvents = events.filter((event) => event.type === 'tool_execution_end').map((event) => event.toolCallId);
    expect(endEvents).toEqual(['c5', 'c4', 'c3', 'c2', 'c1', 'c0']);
  });
});
