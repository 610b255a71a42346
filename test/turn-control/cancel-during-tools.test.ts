import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { createKernel, defineTool, memoryStore, type ToolExecution, type WorkflowRun } from 'dualloop';
import { collectRun, scriptedModel } from 'dualloop/testing';

describe('run.abort() while a tool of the batch runs', () => {
  it.each<ToolExecution>(['sequential', 'batch'])('%s: the running call sees its signal, later calls never start', async (toolExecution) => {
    let run!: WorkflowRun;
    const ran: string[] = [];
    const hold = defineTool({
      name: 'hold',
      description: 'waits for its signal',
      parameters: z.object({}),
      execute: (_args, { signal }) =>
        new Promise((resolve) => {
          ran.push('hold');
          signal.addEventListener('abort', () => resolve('released'));
          run.abort('operator stop');
        }),
    });
    const later = defineTool({ name: 'later', description: 'runs later', parameters: z.object({}), execute: () => ran.push('later') });
    const model = scriptedModel([{ toolCalls: [{ name: 'hold' }, { name: 'later' }, { name: 'later' }] }, { text: 'never' }]);
    run = createKernel({ model, tools: [hold, later], toolExecution }).start(['hold on']);
    const { events, result } = await collectRun(run);

    expect(result.stop.reason).toBe('context_canceled');
    expect(ran).toEqual(['hold']);
    const starts = events.filter((event) => event.type === 'tool_execution_start').map((event) => event.name);
    expect(starts).toEqual(['hold']);
    // The cancelled call still reports its end, before the run's event stream closes.
    expect(events.filter((event) => event.type === 'tool_execution_end')).toMatchObject([{ name: 'hold', isError: true, result: 'cancelled: the task stopped' }]);
    expect(model.calls).toHaveLength(1);
  });
});

describe('a call cut by a cancel', () => {
  it('is not recorded as done: after resume it runs again and the model sees its real result', async () => {
    const store = memoryStore();
    let run!: WorkflowRun;
    let executions = 0;
    const fetchPage = defineTool({
      name: 'fetch_page',
      description: 'fetches',
      parameters: z.object({}),
      execute: (_args, { signal }) => {
        executions += 1;
        if (executions > 1) return 'page content';
        return new Promise((resolve) => {
          signal.addEventListener('abort', () => resolve('too late'));
          run.abort('operator stop');
        });
      },
    });
    const model = scriptedModel(({ messages }) => (messages.some((message) => message.role === 'tool') ? { text: 'done' } : { toolCalls: [{ name: 'fetch_page', id: 'fixed-id' }] }));
    const kernel = createKernel({ model, tools: [fetchPage], store });
    run = kernel.start(['fetch it'], { runId: 'cut-call' });
    expect((await collectRun(run)).result.stop.reason).toBe('context_canceled');
    expect(await store.getToolResult('cut-call', 'fixed-id')).toBeUndefined();

    const resumed = await collectRun(await kernel.resume('cut-call'));
    expect(executions).toBe(2);
    expect(resumed.result.tasks.at(-1)!.stop.reason).toBe('planner_stopped');
    expect(model.calls.at(-1)!.messages.find((message) => message.role === 'tool')!.content).toBe('page content');
  });
});
