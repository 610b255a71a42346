import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigError, createKernel, defineTool, loopEngine, memoryStore, runWorkflow, type Tool, type ToolSource } from 'dualloop';
import { scriptedModel } from 'dualloop/testing';

/*
 * Tool sources through the public API (ADR 0143): a run opens each source at its first need and
 * closes what it opened when it ends. The source here is written in the test, as a user would.
 */

const echo = (name: string) => defineTool({ name, description: `Echoes (${name})`, parameters: z.object({ text: z.string() }), execute: ({ text }) => text });

function recordingSource(options: { readonly tools?: readonly Tool[]; readonly fail?: string } = {}) {
  const log: string[] = [];
  const source: ToolSource = {
    kind: 'tool_source',
    name: 'recording',
    secrets: ['source-secret-0123456789'],
    async open({ runId }) {
      log.push(`open ${runId}`);
      if (options.fail !== undefined) throw new Error(options.fail);
      return { tools: options.tools ?? [echo('remote_echo')], close: async () => void log.push(`close ${runId}`) };
    },
  };
  return { source, log };
}

describe('tool sources', () => {
  it('open at the run’s first model call, which lists their tools after the kernel’s own, and close when the run ends', async () => {
    const { source, log } = recordingSource();
    const model = scriptedModel(({ index }) => {
      log.push(`model call ${index}`);
      return index === 0 ? { toolCalls: [{ name: 'remote_echo', args: { text: 'hi' } }] } : { text: 'done' };
    });
    const kernel = createKernel({ model, tools: [echo('local_echo'), source] });
    expect(log).toEqual([]);

    const result = await kernel.start(['Echo'], { runId: 'one' }).result;

    expect(log).toEqual(['open one', 'model call 0', 'model call 1', 'close one']);
    expect(model.calls[0]?.tools.map((tool) => tool.name)).toEqual(['local_echo', 'remote_echo']);
    expect(result.tasks[0]?.turns[0]?.toolCalls[0]).toMatchObject({ name: 'remote_echo', isError: false, result: 'hi' });
  });

  it('are not opened by a run that never calls the model', async () => {
    const { source, log } = recordingSource();
    const result = await runWorkflow({ model: scriptedModel([]), tools: [source], tasks: ['x'], policy: { checkTask: () => ({ decision: 'deny', reason: 'no' }) } });
    expect(result.stop.reason).toBe('policy_denied');
    expect(log).toEqual([]);
  });

  it('open once per run, and again for a resumed run', async () => {
    const { source, log } = recordingSource();
    const kernel = createKernel({
      model: scriptedModel([{ toolCalls: [{ name: 'remote_echo', args: { text: 'a' }, id: 'ask' }] }, { text: 'done' }]),
      tools: [source],
      store: memoryStore(),
      policy: { checkToolCall: () => ({ decision: 'require_approval', reason: 'ask' }) },
    });
    expect((await kernel.start(['x'], { runId: 'parked' }).result).stop.reason).toBe('awaiting_approval');
    expect((await (await kernel.resume('parked', { approvals: { ask: 'approve' } })).result).stop.reason).toBe('goal_achieved');
    expect(log).toEqual(['open parked', 'close parked', 'open parked', 'close parked']);
  });

  it('end the task error (tool_failed) when one does not open, before the model is called, without its secrets', async () => {
    const { source } = recordingSource({ fail: 'cannot reach it with source-secret-0123456789' });
    const model = scriptedModel([{ text: 'never' }]);
    const result = await runWorkflow({ model, tools: [source], tasks: ['x'] });
    expect(result.stop).toMatchObject({ reason: 'error', code: 'tool_failed', detail: expect.stringContaining('tool source "recording" did not open: cannot reach it') });
    expect(JSON.stringify(result)).not.toContain('source-secret-0123456789');
    expect(model.calls).toHaveLength(0);
  });

  it('fail to open when a tool name is already the run’s, closing what was opened', async () => {
    const { source, log } = recordingSource({ tools: [echo('local_echo')] });
    const result = await runWorkflow({ model: scriptedModel([{ text: 'never' }]), tools: [echo('local_echo'), source], tasks: ['x'] });
    expect(result.stop).toMatchObject({ code: 'tool_failed', detail: expect.stringContaining('gave a tool named "local_echo", which the run already has') });
    expect(log.filter((line) => line.startsWith('close'))).toHaveLength(1);
  });

  it('are listed to the planner of plan_execute', async () => {
    const { source, log } = recordingSource();
    const planner = scriptedModel([{ text: '```json\n{"steps":["echo it"]}\n```' }]);
    const result = await runWorkflow({ model: scriptedModel([{ text: 'echoed' }]), planner, strategy: 'plan_execute', tools: [source], tasks: ['Echo'] });
    expect(result.stop.reason).toBe('goal_achieved');
    expect(planner.calls[0]?.messages.map((message) => message.content).join('\n')).toContain('- remote_echo: Echoes (remote_echo)');
    expect(log.filter((line) => line.startsWith('open'))).toHaveLength(1);
  });

  it('are refused by loopEngine, which has no run to tie them to', () => {
    const { source } = recordingSource();
    expect(() => loopEngine({ model: scriptedModel([]), tools: [source as never] })).toThrow(ConfigError);
  });
});
