import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { createKernel, defineTool, memoryStore, readCheckpoint, type Message, type WorkflowRun } from 'dualloop';
import { collectRun, scriptedModel } from 'dualloop/testing';
import { userContents } from './helpers.js';

describe('queued messages survive an abort', () => {
  it('steering and follow-ups queued when the run is aborted are checkpointed and delivered after resume', async () => {
    const store = memoryStore();
    let run!: WorkflowRun;
    let runs = 0;
    const work = defineTool({
      name: 'work',
      description: 'works',
      parameters: z.object({}),
      execute: () => {
        if (runs++ > 0) return 'worked again';
        run.steer('steer: prefer the cache');
        run.followUp('follow-up: write a summary');
        run.abort('operator stop');
        return 'worked';
      },
    });
    const said = (messages: readonly Message[], text: string) => userContents(messages).includes(text);
    // Calls the tool until steered, answers once, then answers the follow-up.
    const model = scriptedModel(({ messages }) => {
      if (said(messages, 'follow-up: write a summary')) return { text: 'summary' };
      if (said(messages, 'steer: prefer the cache')) return { text: 'answer' };
      return { toolCalls: [{ name: 'work' }] };
    });
    const kernel = createKernel({ model, tools: [work], store });
    run = kernel.start(['do it'], { runId: 'queues-abort' });
    const first = await collectRun(run);
    expect(first.result.stop.reason).toBe('context_canceled');
    const checkpoint = (await readCheckpoint(store, 'queues-abort')) as unknown as { progress: { queues: unknown } };
    expect(checkpoint.progress.queues).toMatchObject({
      steering: [{ content: 'steer: prefer the cache' }],
      followUp: [{ content: 'follow-up: write a summary' }],
    });

    const resumed = await collectRun(await kernel.resume('queues-abort'));
    expect(resumed.result.tasks.at(-1)!.stop.reason).toBe('planner_stopped');
    expect(resumed.result.tasks.at(-1)!.output).toBe('summary');
  });
});
