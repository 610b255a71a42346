import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createKernel, defineTool, memoryStore, type KernelEvent, type PolicyGate } from 'dualloop';
import { scriptedModel } from 'dualloop/testing';
import { openaiModel } from '../../src/providers/openai-model.js';
import { status } from '../support/openai-compatible-server.js';
import { isolateOpenAIEnvironment, makeRequest, useServer, expectFailure } from '../providers/helpers.js';

// Issue 15 item 12: counting and ordering under deadlines, resumes and refusals.

isolateOpenAIEnvironment();
const server = useServer();

const quick = defineTool({ name: 'quick', description: 'Answers at once.', parameters: z.object({}), execute: () => 'done' });
const stuck = defineTool({
  name: 'stuck',
  description: 'Never answers; honours its signal.',
  parameters: z.object({}),
  execute: (_args, { signal }) => new Promise((resolve) => signal.addEventListener('abort', () => resolve('late'))),
});

describe('a turn cut by a deadline', () => {
  it.each(['sequential', 'parallel', 'batch'] as const)('counts the tools it executed in toolCalls (%s)', async (toolExecution) => {
    const store = memoryStore();
    const model = scriptedModel([{ toolCalls: [{ name: 'quick', args: {} }, { name: 'quick', args: {} }, { name: 'stuck', args: {} }] }, { text: 'never' }]);
    const run = createKernel({ model, tools: [quick, stuck], store, toolExecution, bounds: { inner: { maxRuntimeMs: 200 } } }).start(['go']);
    const result = await run.result;
    expect(result.stop.reason).toBe('max_runtime');
    const executed = (await store.readEvents(run.runId)).filter((event) => event.type === 'tool_execution_start').length;
    expect(executed).toBe(3);
    expect(result.metrics.toolCalls).toBe(3);
    expect(result.tasks[0]!.toolCalls).toBe(3);
  });
});

describe('a turn cut another way while its tools run (ADR/0393: started calls are reported before the cut)', () => {
  const cutWhileStuck = async (toolExecution: 'sequential' | 'parallel' | 'batch', cut: 'abort' | 'session deadline') => {
    const store = memoryStore();
    const model = scriptedModel([{ toolCalls: [{ name: 'quick', args: {} }, { name: 'quick', args: {} }, { name: 'stuck', args: {} }] }, { text: 'never' }]);
    const bounds = cut === 'session deadline' ? { outer: { maxSessionRuntimeMs: 200 } } : {};
    const run = createKernel({ model, tools: [quick, stuck], store, toolExecution, bounds }).start(['go']);
    if (cut === 'abort') {
      for await (const event of run) if (event.type === 'tool_execution_start' && event.name === 'stuck') run.abort('operator stop');
    }
    const result = await run.result;
    expect(result.stop.reason).toBe(cut === 'abort' ? 'context_canceled' : 'max_session_runtime');
    expect((await store.readEvents(run.runId)).filter((event) => event.type === 'tool_execution_start')).toHaveLength(3);
    expect(result.metrics.toolCalls).toBe(3);
    expect(result.tasks[0]!.toolCalls).toBe(3);
  };
  it.each(['sequential', 'parallel', 'batch'] as const)('run.abort() counts the tools that started (%s)', (toolExecution) => cutWhileStuck(toolExecution, 'abort'));
  it.each(['sequential', 'batch'] as const)('the session deadline counts the tools that started (%s)', (toolExecution) => cutWhileStuck(toolExecution, 'session deadline'));
});

describe('the stored event log', () => {
  it.each([
    ['a task deadline', { inner: { maxRuntimeMs: 150 } }],
    ['a session deadline', { outer: { maxSessionRuntimeMs: 150 } }],
  ])('ends with workflow_end after %s cuts a running tool', async (_name, bounds) => {
    const store = memoryStore();
    const model = scriptedModel([{ toolCalls: [{ name: 'stuck', args: {} }] }, { text: 'never' }]);
    const run = createKernel({ model, tools: [stuck], store, bounds }).start(['go']);
    await run.result;
    await new Promise((resolve) => setTimeout(resolve, 50));
    const stored = await store.readEvents(run.runId);
    expect(stored.at(-1)!.type).toBe('workflow_end');
    expect(stored.filter((event) => event.type === 'workflow_end')).toHaveLength(1);
  });

  it('holds nothing after workflow_end when a slow policy gate answers after the deadline', async () => {
    const store = memoryStore();
    let answered!: () => void;
    const answeredLate = new Promise<void>((resolve) => (answered = resolve));
    const slowGate: PolicyGate = {
      checkToolCall: () =>
        new Promise((resolve) =>
          setTimeout(() => {
            resolve({ decision: 'allow' });
            setTimeout(answered, 20);
          }, 300),
        ),
    };
    const model = scriptedModel([{ toolCalls: [{ name: 'quick', args: {} }] }, { text: 'never' }]);
    const run = createKernel({ model, tools: [quick], store, policy: slowGate, bounds: { inner: { maxRuntimeMs: 100 } } }).start(['go']);
    expect((await run.result).stop.reason).toBe('max_runtime');
    await answeredLate;
    const stored = await store.readEvents(run.runId);
    expect(stored.at(-1)!.type).toBe('workflow_end');
  });

  it('a resumed segment starts its task before its turn', async () => {
    const store = memoryStore();
    const gate: PolicyGate = { checkToolCall: (request) => (request.name === 'stuck' ? { decision: 'require_approval', reason: 'human' } : { decision: 'allow' }) };
    const deploy = defineTool({ name: 'stuck', description: 'Deploys.', parameters: z.object({}), execute: () => 'deployed' });
    const model = scriptedModel([{ toolCalls: [{ name: 'quick', args: {} }] }, { toolCalls: [{ name: 'stuck', args: {}, id: 'call-1' }] }, { text: 'done' }]);
    const kernel = createKernel({ model, tools: [quick, deploy], store, policy: gate });
    const parked = await kernel.start(['ship'], { runId: 'parked' }).result;
    expect(parked.stop.reason).toBe('awaiting_approval');
    const before = (await store.readEvents('parked')).length;
    const resumed = await kernel.resume('parked', { approvals: { 'call-1': 'approve' } });
    const events: KernelEvent[] = [];
    for await (const event of resumed) events.push(event);
    expect((await resumed.result).stop.reason).toBe('goal_achieved');
    const types = events.map((event) => event.type).filter((type) => ['workflow_start', 'task_start', 'turn_start'].includes(type));
    expect(types.slice(0, 3)).toEqual(['workflow_start', 'task_start', 'turn_start']);
    const stored = (await store.readEvents('parked')).slice(before).map((event) => event.type);
    expect(stored.indexOf('task_start')).toBeGreaterThanOrEqual(0);
    expect(stored.indexOf('task_start')).toBeLessThan(stored.indexOf('turn_start'));
  });
});

describe('x-should-retry: false', () => {
  it('the failure does not claim retries that did not happen', async () => {
    server().enqueue(status(503, 'overloaded', { headers: { 'x-should-retry': 'false' } }));
    const model = openaiModel({ model: 'test-model', baseURL: server().baseURL, apiKey: 'sk-local', maxRetries: 2 });
    const failure = expectFailure(await model.call(makeRequest()));
    expect(server().requests).toHaveLength(1);
    expect(failure.message).not.toMatch(/after retrying/);
    expect(failure.message).toMatch(/without retrying \(the server sent x-should-retry: false\)/);
  });
});
