import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { createKernel, defineTool, type DeliveryMode, type WorkflowRun } from 'dualloop';
import { collectRun, scriptedModel } from 'dualloop/testing';
import { userContents } from './helpers.js';

/** A tool that lets the test act while it runs (here: steer the run). */
function duringTool(action: () => void) {
  return defineTool({
    name: 'work',
    description: 'does some work',
    parameters: z.object({}),
    execute: () => {
      action();
      return 'worked';
    },
  });
}

describe('steer()', () => {
  it('reaches the very next model call when sent while a tool runs, after the tool results', async () => {
    let run!: WorkflowRun;
    const work = duringTool(() => run.steer('use the staging database'));
    const model = scriptedModel([{ toolCalls: [{ name: 'work' }] }, { text: 'done' }]);
    run = createKernel({ model, tools: [work] }).start(['do the work']);
    const { result } = await collectRun(run);

    expect(model.calls).toHaveLength(2);
    const next = model.calls[1]!.messages;
    expect(next.at(-1)).toEqual({ role: 'user', content: 'use the staging database', source: 'steering' });
    expect(next.at(-2)).toMatchObject({ role: 'tool', content: 'worked' });
    expect(userContents(model.calls[0]!.messages)).not.toContain('use the staging database');
    expect(result.tasks[0]!.stop.reason).toBe('planner_stopped');
  });

  it.each<[DeliveryMode, string[][]]>([
    ['one-at-a-time', [['s1'], ['s2'], ['s3']]],
    ['all', [['s1', 's2', 's3']]],
  ])('steeringMode %s delivers the queue per model call as %j', async (steeringMode, expected) => {
    let run!: WorkflowRun;
    const work = duringTool(() => ['s1', 's2', 's3'].forEach((message) => run.steer(message)));
    // The model keeps calling the tool until it has seen every steer, then answers.
    const model = scriptedModel(({ index, messages }) => {
      if (index === 0) return { toolCalls: [{ name: 'work' }] };
      return userContents(messages).includes('s3') ? { text: 'done' } : { toolCalls: [{ name: 'noop' }] };
    });
    run = createKernel({ model, tools: [work], steeringMode }).start(['work']);
    await collectRun(run);

    const steersPerCall = model.calls.slice(1).map((call, position) => {
      const before = new Set(userContents(model.calls[position]!.messages));
      return userContents(call.messages).filter((content) => !before.has(content));
    });
    expect(steersPerCall).toEqual(expected);
  });

  it('clearSteering() drops the messages not yet delivered', async () => {
    let run!: WorkflowRun;
    const work = duringTool(() => {
      run.steer('stale instruction');
      run.clearSteering();
    });
    const model = scriptedModel([{ toolCalls: [{ name: 'work' }] }, { text: 'done' }]);
    run = createKernel({ model, tools: [work] }).start(['work']);
    await collectRun(run);
    expect(userContents(model.calls[1]!.messages)).not.toContain('stale instruction');
  });
});
