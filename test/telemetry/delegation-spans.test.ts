import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { agentTool, createKernel, defineTool, memoryStore } from 'dualloop';
import { scriptedModel, type ScriptCall, type ScriptStep } from 'dualloop/testing';
import { parentOf, spanTree, useMemoryTracing } from './memory-tracing.js';

/*
 * Delegation (`agentTool`) in the span tree: a child run's `invoke_workflow` starts under the
 * parent's `execute_tool` span of the call that delegated, in the parent's trace, at every level;
 * a child continued after its parent parked starts under the parent's new call span and links to
 * its own previous segment.
 */

const { tracer, spans } = useMemoryTracing();
const rootOf = (runId: string) => spans().filter((span) => span.name.startsWith('invoke_workflow') && span.attributes['dualloop.run.id'] === runId);
const taskText = (call: ScriptCall) => {
  const first = call.messages.find((message) => message.role === 'user');
  return typeof first?.content === 'string' ? first.content : '';
};
const answered = (call: ScriptCall) => call.messages.at(-1)?.role === 'tool';

describe('OpenTelemetry spans of delegated runs', () => {
  it('nests each child run under the execute_tool span that delegated to it, three levels deep, in one trace', async () => {
    const search = defineTool({ name: 'search', description: 'Searches.', parameters: z.object({}), execute: () => 'two sources' });
    const check = agentTool({ name: 'check', description: 'Checks facts.', parameters: z.object({}), tasks: ['Check the facts.'], tools: [search] });
    const research = agentTool({ name: 'research', description: 'Researches.', parameters: z.object({}), tasks: ['Research otters.'], tools: [check] });
    const model = scriptedModel((call): ScriptStep => {
      const task = taskText(call);
      if (answered(call)) return { text: `${task} done` };
      if (task.startsWith('Check')) return { toolCalls: [{ name: 'search', id: 'call-search', args: {} }] };
      if (task.startsWith('Research')) return { toolCalls: [{ name: 'check', id: 'call-check', args: {} }] };
      return { toolCalls: [{ name: 'research', id: 'call-research', args: {} }] };
    });
    const kernel = createKernel({ model, tools: [research], store: memoryStore(), telemetry: { tracer } });
    const result = await kernel.start(['Write about otters.'], { runId: 'writer' }).result;
    expect(result.stop.reason).toBe('goal_achieved');

    expect(spanTree(spans())).toEqual([
      'invoke_workflow dualloop',
      '  invoke_agent task-1',
      '    chat scripted',
      '    execute_tool research',
      '      invoke_workflow dualloop',
      '        invoke_agent task-1',
      '          chat scripted',
      '          execute_tool check',
      '            invoke_workflow dualloop',
      '              invoke_agent task-1',
      '                chat scripted',
      '                execute_tool search',
      '                chat scripted',
      '          chat scripted',
      '    chat scripted',
    ]);
    const [writer] = rootOf('writer');
    const [researcher] = rootOf('writer.t0.1.0');
    const [checker] = rootOf('writer.t0.1.0.t0.1.0');
    expect(parentOf(spans(), researcher!)?.attributes).toMatchObject({ 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.call.id': 'call-research', 'dualloop.run.id': 'writer' });
    expect(parentOf(spans(), checker!)?.attributes).toMatchObject({ 'gen_ai.tool.call.id': 'call-check', 'dualloop.run.id': 'writer.t0.1.0' });
    expect(researcher?.attributes).toMatchObject({ 'dualloop.parent.run.id': 'writer', 'dualloop.parent.tool_call.id': 'call-research', 'dualloop.stop.reason': 'goal_achieved' });
    expect(checker?.attributes).toMatchObject({ 'dualloop.parent.run.id': 'writer.t0.1.0', 'dualloop.parent.tool_call.id': 'call-check' });
    expect(writer?.attributes['dualloop.parent.run.id']).toBeUndefined();
    // One trace; each child's task spans carry the child's run id.
    expect(new Set(spans().map((span) => span.spanContext().traceId)).size).toBe(1);
    expect(spans().filter((span) => span.name === 'execute_tool search').map((span) => span.attributes['dualloop.run.id'])).toEqual(['writer.t0.1.0.t0.1.0']);
  });

  it('starts a child continued after an approval under the resumed parent’s call span, linked to its previous segment', async () => {
    const deploy = defineTool({ name: 'deploy', description: 'Deploys.', parameters: z.object({}), execute: () => 'deployed' });
    const release = agentTool({ name: 'release', description: 'Releases.', parameters: z.object({}), tasks: ['Ship it.'], tools: [deploy] });
    const model = scriptedModel((call): ScriptStep => {
      if (answered(call)) return { text: 'done' };
      return taskText(call) === 'Ship it.' ? { toolCalls: [{ name: 'deploy', id: 'call-deploy', args: {} }] } : { toolCalls: [{ name: 'release', id: 'call-release', args: {} }] };
    });
    const policy = { checkToolCall: ({ name }: { name: string }) => (name === 'deploy' ? { decision: 'require_approval' as const, reason: 'a human deploys' } : { decision: 'allow' as const }) };
    const kernel = createKernel({ model, tools: [release], store: memoryStore(), policy, telemetry: { tracer } });
    expect((await kernel.start(['Release the app.'], { runId: 'releaser' }).result).stop.reason).toBe('awaiting_approval');
    const resumed = await (await kernel.resume('releaser', { approvals: { 'call-deploy': 'approve' } })).result;
    expect(resumed.stop.reason).toBe('goal_achieved');

    const childRoots = rootOf('releaser.t0.1.0');
    expect(childRoots).toHaveLength(2);
    const [parked, continued] = childRoots as [ReadableSpan, ReadableSpan];
    const calls = spans().filter((span) => span.name === 'execute_tool release');
    expect(calls).toHaveLength(2);
    expect(parked.parentSpanContext?.spanId).toBe(calls[0]!.spanContext().spanId);
    expect(continued.parentSpanContext?.spanId).toBe(calls[1]!.spanContext().spanId);
    expect(continued.links.map((link) => [link.context.spanId, link.attributes?.['dualloop.link']])).toEqual([[parked.spanContext().spanId, 'resumed_from']]);
    expect(continued.attributes).toMatchObject({ 'dualloop.resumed': true, 'dualloop.parent.run.id': 'releaser', 'dualloop.stop.reason': 'goal_achieved' });
    // The parent's second segment continues its trace, and the child's both segments are in it.
    expect(new Set(spans().map((span) => span.spanContext().traceId)).size).toBe(1);
  });
});
