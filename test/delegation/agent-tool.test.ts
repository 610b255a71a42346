import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { agentTool, createKernel, defineTool, memoryStore, type KernelEvent } from 'dualloop';
import { scriptedModel, type ScriptCall, type ScriptStep } from 'dualloop/testing';

function taskOf(call: ScriptCall): string {
  const first = call.messages.find((message) => message.role === 'user');
  return typeof first?.content === 'string' ? first.content : '';
}

const lastIsTool = (call: ScriptCall) => call.messages.at(-1)?.role === 'tool';

describe('agentTool: a tool whose execution is a child run', () => {
  it('runs the child in the same store, with parent on its record; the tool result is its typed output', async () => {
    const store = memoryStore();
    const model = scriptedModel((call): ScriptStep => {
      const task = taskOf(call);
      if (task.startsWith('Research')) return { text: JSON.stringify({ facts: ['a', 'b'] }), usage: { inputTokens: 30, outputTokens: 10 } };
      if (!lastIsTool(call)) return { toolCalls: [{ name: 'research', id: 'call-research', args: { topic: 'otters' } }], usage: { inputTokens: 5, outputTokens: 5 } };
      return { text: `wrote it from ${call.messages.at(-1)?.content}`, usage: { inputTokens: 5, outputTokens: 5 } };
    });
    const research = agentTool({
      name: 'research',
      description: 'Researches a topic.',
      parameters: z.object({ topic: z.string() }),
      tasks: ({ topic }) => [{ id: 'find', description: `Research ${topic}`, output: z.object({ facts: z.array(z.string()) }) }],
    });
    const kernel = createKernel({ model, store, tools: [research] });
    const run = kernel.start(['Write about otters'], { runId: 'writer' });
    const events: KernelEvent[] = [];
    for await (const event of run) events.push(event);
    const result = await run.result;
    expect(result.stop.reason).toBe('goal_achieved');
    expect(result.tasks[0]!.output).toBe('wrote it from {"facts":["a","b"]}');
    const childId = 'writer.t0.1.0';
    expect(await store.getRun(childId)).toMatchObject({ runId: childId, parent: { runId: 'writer', toolCallId: 'call-research' } });
    expect((await store.loadResult(childId))?.stop.reason).toBe('goal_achieved');
    // The child's events reach the parent's stream, with their run id and path.
    const childEvents = events.filter((event) => event.runId === childId);
    expect(childEvents.map((event) => event.type)).toContain('task_end');
    expect(childEvents.every((event) => JSON.stringify(event.path) === JSON.stringify(['writer', childId]))).toBe(true);
    // The child's spend is the parent's: its 40 tokens in the parent's task, beside the parent's own 20.
    expect(result.tasks[0]!.usage).toEqual({ inputTokens: 40, outputTokens: 20 });
    expect(result.metrics.inputTokens + result.metrics.outputTokens).toBe(60);
  });

  it('refuses a call deeper than maxDelegationDepth with an error result delegation_too_deep', async () => {
    const model = scriptedModel((call): ScriptStep => (lastIsTool(call) ? { text: `saw ${call.messages.at(-1)?.content}` } : { toolCalls: [{ name: 'deeper', id: `call-${taskOf(call).length}` }] }));
    const deeper: ReturnType<typeof agentTool> = agentTool({ name: 'deeper', description: 'Goes deeper.', parameters: z.object({}), tasks: ['go deeper'] });
    const kernel = createKernel({ model, tools: [deeper], bounds: { outer: { maxDelegationDepth: 2 } } });
    const result = await kernel.start(['start']).result;
    expect(result.stop.reason).toBe('goal_achieved');
    expect(result.tasks[0]!.output).toMatch(/delegation_too_deep/);
  });

  it('holds the child within what the parent has left, and the parent stops with the child', async () => {
    const model = scriptedModel((call): ScriptStep => {
      if (taskOf(call).startsWith('dig')) return { toolCalls: [{ name: 'noop', args: {} }], usage: { inputTokens: 40, outputTokens: 0 } };
      return lastIsTool(call) ? { text: 'done' } : { toolCalls: [{ name: 'dig', id: 'call-dig' }], usage: { inputTokens: 10, outputTokens: 0 } };
    });
    const noop = defineTool({ name: 'noop', description: 'Nothing.', parameters: z.object({}), execute: () => 'ok' });
    const dig = agentTool({ name: 'dig', description: 'Digs.', parameters: z.object({}), tasks: ['dig deep'], tools: [noop], bounds: { inner: { maxTurns: 50 } } });
    const kernel = createKernel({ model, tools: [dig], loopDetection: false, bounds: { outer: { maxTokens: 100 } } });
    const result = await kernel.start(['boss']).result;
    // The child got 90 tokens (100 − the parent's 10): it stopped at 120 ≥ 90, and so did the parent's budget.
    expect(result.stop.reason).toBe('budget_exhausted');
    expect(result.tasks[0]!.toolCalls).toBeGreaterThan(1);
    expect(result.metrics.inputTokens).toBeLessThanOrEqual(100 + 40);
  });
});

describe('a child that parks, and a parent that is cancelled', () => {
  function deployWorkflow(store: ReturnType<typeof memoryStore>) {
    let deploys = 0;
    const deploy = defineTool({ name: 'deploy', description: 'Deploys.', parameters: z.object({}), execute: () => (deploys += 1, 'deployed') });
    const model = scriptedModel((call): ScriptStep => {
      const task = taskOf(call);
      if (task === 'ship it') return lastIsTool(call) ? { text: 'shipped' } : { toolCalls: [{ name: 'deploy', id: 'call-deploy' }] };
      return lastIsTool(call) ? { text: `release: ${call.messages.at(-1)?.content}` } : { toolCalls: [{ name: 'release', id: 'call-release' }] };
    });
    const release = agentTool({ name: 'release', description: 'Releases.', parameters: z.object({}), tasks: ['ship it'], tools: [deploy] });
    const kernel = createKernel({
      model,
      store,
      tools: [release],
      policy: { checkToolCall: ({ name }) => (name === 'deploy' ? { decision: 'require_approval', reason: 'a human deploys' } : { decision: 'allow' }) },
    });
    return { kernel, deployed: () => deploys };
  }

  it('parks the parent when the child parks; resuming the parent with the child’s approval continues the child', async () => {
    const store = memoryStore();
    const { kernel, deployed } = deployWorkflow(store);
    const first = await kernel.start(['release the app'], { runId: 'releaser' }).result;
    expect(first.stop.reason).toBe('awaiting_approval');
    expect(first.stop.detail).toContain('call-deploy');
    expect((await store.loadResult('releaser.t0.1.0'))?.stop.reason).toBe('awaiting_approval');
    const resumed = await (await kernel.resume('releaser', { approvals: { 'call-deploy': 'approve' } })).result;
    expect(resumed.stop.reason).toBe('goal_achieved');
    expect(resumed.tasks[0]!.output).toBe('release: shipped');
    expect(deployed()).toBe(1);
    // One child run, continued, not a second one.
    expect((await store.listRuns()).map((run) => run.runId).sort()).toEqual(['releaser', 'releaser.t0.1.0']);
  });

  it('cancels the child when the parent is aborted', async () => {
    const store = memoryStore();
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slow = defineTool({ name: 'slow', description: 'Slow.', parameters: z.object({}), execute: async () => (await gate, 'slow') });
    const model = scriptedModel((call): ScriptStep => {
      if (taskOf(call) === 'wait') return lastIsTool(call) ? { text: 'waited' } : { toolCalls: [{ name: 'slow', id: 'call-slow' }] };
      return lastIsTool(call) ? { text: 'done' } : { toolCalls: [{ name: 'waiter', id: 'call-waiter' }] };
    });
    const waiter = agentTool({ name: 'waiter', description: 'Waits.', parameters: z.object({}), tasks: ['wait'], tools: [slow] });
    const run = createKernel({ model, store, tools: [waiter] }).start(['boss'], { runId: 'boss' });
    for await (const event of run) {
      if (event.type === 'tool_execution_start' && event.toolCallId === 'call-slow') break;
    }
    run.abort('enough');
    expect((await run.result).stop.reason).toBe('context_canceled');
    release();
    for (let tries = 0; (await store.loadResult('boss.t0.1.0')) === undefined && tries < 50; tries += 1) await new Promise((resolve) => setTimeout(resolve, 10));
    expect((await store.loadResult('boss.t0.1.0'))?.stop.reason).toBe('context_canceled');
  });
});
