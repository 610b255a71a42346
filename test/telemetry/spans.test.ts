import { trace } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createKernel, defineTool, memoryStore, runWorkflow, type KernelEvent, type KernelOptions, type Message } from 'dualloop';
import { scriptedModel } from 'dualloop/testing';
import { spanTree, useMemoryTracing } from './memory-tracing.js';

/*
 * OpenTelemetry spans from a run, collected by the SDK's in-memory exporter: the GenAI span tree,
 * its attributes, error statuses, opt-in content and the link a resumed run makes to its trace.
 */

const { exporter, provider, tracer, spans } = useMemoryTracing();

const add = defineTool({ name: 'add', description: 'Adds', parameters: z.object({ a: z.number(), b: z.number() }), execute: ({ a, b }) => a + b });
const broken = defineTool({ name: 'broken', description: 'Throws', parameters: z.object({}), execute: () => { throw new Error('disk on fire'); } });

const named = (prefix: string) => spans().filter((span) => span.name.startsWith(prefix));
const tree = () => spanTree(spans());

function run(options: Partial<KernelOptions> & Pick<KernelOptions, 'model'>) {
  return runWorkflow({ telemetry: { tracer }, ...options });
}

describe('OpenTelemetry spans', () => {
  it('builds invoke_workflow → invoke_agent per task → chat and execute_tool, with gen_ai and dualloop attributes', async () => {
    const model = scriptedModel([
      { toolCalls: [{ name: 'add', args: { a: 1, b: 2 }, id: 'call-1' }], usage: { inputTokens: 12, outputTokens: 3 } },
      { text: 'three', usage: { inputTokens: 20, outputTokens: 1 } },
      { text: 'second task', usage: { inputTokens: 5, outputTokens: 2 } },
    ]);
    const result = await run({ model, tools: [add], tasks: ['add', 'say'], name: 'demo' });

    expect(tree()).toEqual([
      'invoke_workflow demo',
      '  invoke_agent task-1',
      '    chat scripted',
      '    execute_tool add',
      '    chat scripted',
      '  invoke_agent task-2',
      '    chat scripted',
    ]);
    const [root] = named('invoke_workflow');
    expect(root?.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_workflow',
      'dualloop.run.id': result.runId,
      'dualloop.stop.reason': 'goal_achieved',
      'gen_ai.usage.input_tokens': 37,
      'gen_ai.usage.output_tokens': 6,
    });
    const [firstChat] = named('chat');
    expect(firstChat?.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'scripted',
      'gen_ai.request.model': 'scripted',
      'gen_ai.usage.input_tokens': 12,
      'gen_ai.usage.output_tokens': 3,
      'gen_ai.response.finish_reasons': ['tool_calls'],
      'dualloop.task.id': 'task-1',
      'dualloop.turn': 1,
    });
    expect(named('execute_tool')[0]?.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'add',
      'gen_ai.tool.call.id': 'call-1',
      'dualloop.tool.replayed': false,
    });
    expect(named('invoke_agent')[0]?.attributes).toMatchObject({ 'gen_ai.operation.name': 'invoke_agent', 'dualloop.task.id': 'task-1', 'dualloop.stop.reason': 'planner_stopped' });
    expect(firstChat?.attributes['gen_ai.output.messages']).toBeUndefined();
    expect(spans().every((span) => span.spanContext().traceId === root?.spanContext().traceId)).toBe(true);
  });

  it('marks failed tools, failed model calls and the spans that stopped with error status and the stop bound', async () => {
    await run({ model: scriptedModel([{ toolCalls: [{ name: 'broken', args: {} }] }, { error: 'provider exploded' }]), tools: [broken], tasks: ['x'] });
    const [tool] = named('execute_tool');
    expect(tool?.status).toMatchObject({ code: 2, message: expect.stringContaining('disk on fire') });
    expect(tool?.attributes['error.type']).toBe('tool_error');
    const failedChat = named('chat')[1];
    expect(failedChat?.status.code).toBe(2);
    expect(named('invoke_agent')[0]?.attributes['dualloop.stop.reason']).toBe('error');
    expect(named('invoke_agent')[0]?.status.code).toBe(2);
    expect(named('invoke_workflow')[0]?.status.code).toBe(2);

    exporter.reset();
    await run({ model: scriptedModel(() => ({ toolCalls: [{ name: 'add', args: { a: 1, b: 1 } }] })), tools: [add], tasks: ['loop'], bounds: { inner: { maxTurns: 2 } }, loopDetection: false });
    expect(named('invoke_agent')[0]?.attributes).toMatchObject({ 'dualloop.stop.reason': 'max_turns', 'dualloop.stop.bound': 'maxTurns', 'dualloop.stop.bound.limit': 2 });
    expect(named('invoke_agent')[0]?.status.code).not.toBe(2);
  });

  it('does not mark a call parked for approval as an error, but a denied or rejected one', async () => {
    const store = memoryStore();
    const policy = { checkToolCall: (request: { name: string }) => (request.name === 'add' ? { decision: 'require_approval' as const, reason: 'ask first' } : { decision: 'allow' as const }) };
    const kernel = createKernel({ model: scriptedModel([{ toolCalls: [{ name: 'add', args: { a: 1, b: 2 }, id: 'ask' }] }, { text: 'done' }]), tools: [add], store, policy, telemetry: { tracer } });
    expect((await kernel.start(['x'], { runId: 'parked' }).result).stop.reason).toBe('awaiting_approval');
    const [parked] = named('execute_tool');
    expect(parked?.status.code).not.toBe(2);
    expect(parked?.attributes).toMatchObject({ 'dualloop.tool.executed': false, 'dualloop.tool.awaiting_approval': true });
    expect(parked?.attributes['error.type']).toBeUndefined();

    exporter.reset();
    await (await kernel.resume('parked', { approvals: { ask: 'reject' } })).result;
    const [rejected] = named('execute_tool');
    expect(rejected?.status.code).toBe(2);
    expect(rejected?.attributes).toMatchObject({ 'error.type': 'tool_refused' });
    expect(rejected?.attributes['dualloop.tool.awaiting_approval']).toBeUndefined();
  });

  it('records contents only when asked, with secrets redacted', async () => {
    const model = scriptedModel([{ toolCalls: [{ name: 'add', args: { a: 1, b: 2 } }] }, { text: 'key is sk-proj-abcdefghijklmnop' }]);
    await runWorkflow({ model, tools: [add], tasks: ['add'], telemetry: { tracer, recordContent: true } });
    const chats = named('chat');
    expect(chats[1]?.attributes['gen_ai.output.messages']).toContain('[redacted]');
    expect(JSON.stringify(spans().map((span) => span.attributes))).not.toContain('sk-proj-abcdefghijklmnop');
    expect(named('execute_tool')[0]?.attributes).toMatchObject({ 'gen_ai.tool.call.arguments': '{"a":1,"b":2}', 'gen_ai.tool.call.result': '3' });
    expect(named('invoke_agent')[0]?.attributes['gen_ai.input.messages']).toContain('add');
  });

  it('continues the trace on resume: the new root is a child of the saved one and links to it', async () => {
    const store = memoryStore();
    let stalled = false;
    const model = scriptedModel(({ index }) => {
      if (index === 1 && !stalled) {
        stalled = true;
        return { text: 'slow', delayMs: 60_000 };
      }
      return index === 0 ? { toolCalls: [{ name: 'add', args: { a: 1, b: 1 }, id: 'c1' }] } : { text: 'done' };
    });
    const kernel = createKernel({ model, tools: [add], store, telemetry: { tracer } });
    const first = kernel.start(['task'], { runId: 'traced' });
    for await (const event of first) if (event.type === 'message_start' && event.turn === 2) first.abort('crash stand-in');
    await first.result;
    const [firstRoot] = named('invoke_workflow');
    const saved = (store.readEvents('traced') as KernelEvent[]).find((event) => event.type === 'workflow_start');
    expect(saved).toMatchObject({ traceParent: `00-${firstRoot?.spanContext().traceId}-${firstRoot?.spanContext().spanId}-01` });
    expect(firstRoot?.attributes['dualloop.stop.reason']).toBe('context_canceled');

    const resumed = await kernel.resume('traced');
    await resumed.result;
    const roots = named('invoke_workflow');
    expect(roots).toHaveLength(2);
    const second = roots[1]!;
    expect(second.spanContext().traceId).toBe(firstRoot?.spanContext().traceId);
    expect(second.parentSpanContext?.spanId).toBe(firstRoot?.spanContext().spanId);
    expect(second.links[0]?.context.spanId).toBe(firstRoot?.spanContext().spanId);
    expect(second.attributes).toMatchObject({ 'dualloop.resumed': true, 'dualloop.stop.reason': 'goal_achieved' });
  });

  it('adds each compaction to its task span as a dualloop.compaction event', async () => {
    const model = scriptedModel([{ toolCalls: [{ name: 'add', args: { a: 1, b: 2 } }] }, { text: 'three' }]);
    const compactor = { shouldCompact: (_messages: unknown, { turn }: { turn: number }) => turn === 2, compact: (messages: readonly Message[]) => messages.slice(0, 1) };
    await run({ model, tools: [add], tasks: ['add'], compactor });
    const [task] = named('invoke_agent');
    expect(task?.events.filter((event) => event.name === 'dualloop.compaction').map((event) => event.attributes)).toEqual([
      { turn: 2, outcome: 'compacted', messages_before: 3, messages_after: 1 },
    ]);
  });

  it('adds each typed answer that did not match to its task span, its issues only with recordContent', async () => {
    const task = { id: 'n', description: 'A number.', output: z.object({ n: z.number() }) };
    const events = async (recordContent: boolean) => {
      exporter.reset();
      await runWorkflow({ telemetry: { tracer, recordContent }, model: scriptedModel([{ text: '{"n": "x"}' }, { text: '{"n": 1}' }]), tasks: [task] });
      return named('invoke_agent')[0]?.events.filter((event) => event.name === 'dualloop.output_invalid').map((event) => event.attributes);
    };
    expect(await events(false)).toEqual([{ turn: 1, outcome: 'repair', repairs: 1, wrap_up: false, issue_count: 1 }]);
    expect((await events(true))?.[0]?.['issues']).toBe('[{"path":"n","message":"Invalid input: expected number, received string"}]');
  });

  it('sets gen_ai.response.model when the model reports which model answered', async () => {
    const model = {
      provider: 'custom',
      modelId: 'requested',
      call: async () => ({ type: 'response' as const, text: 'hi', toolCalls: [], usage: { inputTokens: 1, outputTokens: 1 }, costUsd: 0, finishReason: 'stop' as const, responseModelId: 'served-2026' }),
    };
    await run({ model, tasks: ['x'] });
    expect(named('chat')[0]?.attributes).toMatchObject({ 'gen_ai.request.model': 'requested', 'gen_ai.response.model': 'served-2026' });
  });

  it.each([
    ['anthropic.messages', 'anthropic'],
    ['openai.responses', 'openai'],
    ['google.generative-ai', 'gcp.gemini'],
    ['google.vertex.chat', 'gcp.vertex_ai'],
    ['amazon-bedrock', 'aws.bedrock'],
    ['mistral.chat', 'mistral_ai'],
    ['xai.chat', 'x_ai'],
    ['local.chat', 'local.chat'],
  ])('names the provider %s by its GenAI convention value (%s) on the workflow, agent and chat spans', async (id, conventional) => {
    const model = { provider: id, modelId: 'm-1', call: async () => ({ type: 'response' as const, text: 'hi', toolCalls: [], usage: { inputTokens: 1, outputTokens: 1 }, costUsd: 0, finishReason: 'stop' as const }) };
    await run({ model, tasks: ['x'] });
    for (const span of [...named('invoke_workflow'), ...named('invoke_agent'), ...named('chat')]) {
      expect(span.attributes, span.name).toMatchObject({ 'gen_ai.provider.name': conventional, 'gen_ai.request.model': 'm-1', 'dualloop.model.provider': id });
    }
  });

  it('uses the global tracer provider when one is registered, and nothing with telemetry: false', async () => {
    await runWorkflow({ model: scriptedModel([{ text: 'untraced' }]), tasks: ['x'] });
    expect(spans()).toHaveLength(0);

    trace.setGlobalTracerProvider(provider);
    await runWorkflow({ model: scriptedModel([{ text: 'traced' }]), tasks: ['x'] });
    expect(named('invoke_workflow')).toHaveLength(1);
    expect(named('chat')).toHaveLength(1);

    exporter.reset();
    await runWorkflow({ model: scriptedModel([{ text: 'off' }]), tasks: ['x'], telemetry: false });
    expect(spans()).toHaveLength(0);
  });
});
