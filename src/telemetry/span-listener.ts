import type { KernelEvent } from '../contracts/events.js';
import type { StopCondition } from '../contracts/stop.js';
import type { EventListener } from '../events/event-sink.js';
import { modelAttributes } from './gen-ai-provider.js';
import type { OtelApi } from './otel-api.js';

type Span = OtelApi.Span;
type Attributes = OtelApi.Attributes;

const MAX_CONTENT = 16_000;

export interface SpanListenerInput {
  readonly api: typeof OtelApi;
  readonly tracer: OtelApi.Tracer;
  /** The run's `invoke_workflow` span, already started. */
  readonly root: Span;
  readonly model: { readonly provider: string; readonly modelId: string };
  readonly recordContent: boolean;
}

export interface SpanListener {
  readonly listener: EventListener;
  /** The open `execute_tool` span of a call (a delegated child run starts under it), or `undefined`. */
  toolSpan(toolCallId: string): Span | undefined;
}

/**
 * Builds the run's span tree from its events (GenAI semantic conventions): `invoke_agent` per
 * task under the root, and under each task `chat` per model call and `execute_tool` per tool call.
 * Span times are the events' clock times. A span left open when its task or the run ends (a
 * cancelled call) is ended then, marked `dualloop.canceled`. Never throws into the event sink.
 */
export function createSpanListener({ api, tracer, root, model, recordContent }: SpanListenerInput): SpanListener {
  const tasks = new Map<string, { span: Span; modelError?: string }>();
  const chats = new Map<string, Span>();
  /** Open tool spans; `awaitingApproval` while the gate's last word on the call is `require_approval`. */
  const tools = new Map<string, { span: Span; taskId: string; awaitingApproval?: boolean }>();
  const named = modelAttributes(model);
  const under = (parent: Span) => api.trace.setSpan(api.ROOT_CONTEXT, parent);
  const start = (name: string, parent: Span, at: number, attributes: Attributes, kind = api.SpanKind.INTERNAL) =>
    tracer.startSpan(name, { kind, startTime: at, attributes }, under(parent));
  const content = (value: unknown): string => {
    // Events reach every listener redacted (the sink is the boundary, ADR/0100).
    const safe = typeof value === 'string' ? value : (JSON.stringify(value) ?? 'null');
    return safe.length > MAX_CONTENT ? `${safe.slice(0, MAX_CONTENT)}…` : safe;
  };
  const fail = (span: Span, errorType: string, message: string) => {
    span.setAttribute('error.type', errorType);
    span.setStatus({ code: api.SpanStatusCode.ERROR, message: content(message) });
  };
  const stopAttributes = (span: Span, stop: StopCondition) => {
    span.setAttributes({ 'dualloop.stop.reason': stop.reason, 'dualloop.stop.detail': content(stop.detail) });
    if (stop.bound !== undefined) {
      span.setAttributes({ 'dualloop.stop.bound': stop.bound.name, 'dualloop.stop.bound.limit': stop.bound.limit, 'dualloop.stop.bound.value': stop.bound.value });
    }
    if (stop.reason === 'error') fail(span, 'dualloop.error', stop.detail);
  };
  const endOpen = (at: number, taskId?: string) => {
    for (const [key, span] of chats) {
      if (taskId !== undefined && !key.startsWith(`${taskId}\u0000`)) continue;
      span.setAttribute('dualloop.canceled', true);
      span.end(at);
      chats.delete(key);
    }
    for (const [key, tool] of tools) {
      if (taskId !== undefined && tool.taskId !== taskId) continue;
      tool.span.setAttribute('dualloop.canceled', true);
      tool.span.end(at);
      tools.delete(key);
    }
  };

  const handle = (event: KernelEvent) => {
    switch (event.type) {
      case 'task_start': {
        const span = start(`invoke_agent ${event.taskId}`, root, event.at, {
          'gen_ai.operation.name': 'invoke_agent',
          ...named,
          'gen_ai.agent.name': 'dualloop',
          'gen_ai.agent.id': event.taskId,
          'dualloop.run.id': event.runId,
          'dualloop.task.id': event.taskId,
          'dualloop.task.index': event.taskIndex,
          ...(recordContent ? { 'gen_ai.input.messages': content([{ role: 'user', parts: [{ type: 'text', content: event.description }] }]) } : {}),
        });
        tasks.set(event.taskId, { span });
        return;
      }
      case 'message_start': {
        const task = tasks.get(event.taskId);
        if (task === undefined) return;
        task.modelError = undefined;
        const span = start(
          `chat ${model.modelId}`,
          task.span,
          event.at,
          {
            'gen_ai.operation.name': 'chat',
            ...named,
            'dualloop.run.id': event.runId,
            'dualloop.task.id': event.taskId,
            'dualloop.turn': event.turn,
            'dualloop.wrap_up': event.wrapUp,
          },
          api.SpanKind.CLIENT,
        );
        chats.set(`${event.taskId}\u0000${event.turn}`, span);
        return;
      }
      case 'message_end': {
        const key = `${event.taskId}\u0000${event.turn}`;
        const span = chats.get(key);
        if (span === undefined) return;
        chats.delete(key);
        span.setAttributes({
          'gen_ai.usage.input_tokens': event.usage.inputTokens,
          'gen_ai.usage.output_tokens': event.usage.outputTokens,
          'gen_ai.response.finish_reasons': [event.finishReason],
          'dualloop.cost_usd': event.costUsd,
        });
        if (event.responseModelId !== undefined) span.setAttribute('gen_ai.response.model', event.responseModelId);
        if (recordContent && event.finishReason !== 'error') {
          const parts = [
            ...(event.text === '' ? [] : [{ type: 'text', content: event.text }]),
            ...event.toolCalls.map((call) => ({ type: 'tool_call', id: call.id, name: call.name, arguments: call.args })),
          ];
          span.setAttribute('gen_ai.output.messages', content([{ role: 'assistant', parts, finish_reason: event.finishReason }]));
        }
        if (event.finishReason === 'error') {
          const message = tasks.get(event.taskId)?.modelError ?? 'the model call failed';
          fail(span, message.split(':', 1)[0] ?? 'model_error', message);
        }
        if (event.finishReason === 'canceled') span.setAttribute('dualloop.canceled', true);
        span.end(event.at);
        return;
      }
      case 'tool_execution_start': {
        const task = tasks.get(event.taskId);
        if (task === undefined) return;
        const span = start(`execute_tool ${event.name}`, task.span, event.at, {
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': event.name,
          'gen_ai.tool.call.id': event.toolCallId,
          'gen_ai.tool.type': 'function',
          'dualloop.run.id': event.runId,
          'dualloop.task.id': event.taskId,
          'dualloop.turn': event.turn,
          ...(recordContent ? { 'gen_ai.tool.call.arguments': content(event.args) } : {}),
        });
        tools.set(event.toolCallId, { span, taskId: event.taskId });
        return;
      }
      case 'tool_execution_end': {
        const tool = tools.get(event.toolCallId);
        if (tool === undefined) return;
        tools.delete(event.toolCallId);
        tool.span.setAttributes({ 'dualloop.tool.executed': event.executed, 'dualloop.tool.replayed': event.replayed });
        if (recordContent) tool.span.setAttribute('gen_ai.tool.call.result', content(event.result));
        if (event.isError && !event.executed && tool.awaitingApproval === true) {
          // Parked, not failed: the run waits for an answer (its task and root are not errors either).
          tool.span.setAttribute('dualloop.tool.awaiting_approval', true);
        } else if (event.isError) {
          fail(tool.span, event.executed ? 'tool_error' : 'tool_refused', typeof event.result === 'string' ? event.result : content(event.result));
        }
        tool.span.end(event.at);
        return;
      }
      case 'compaction_end': {
        const task = tasks.get(event.taskId);
        if (task === undefined) return;
        task.span.addEvent(
          'dualloop.compaction',
          { turn: event.turn, outcome: event.outcome, messages_before: event.messagesBefore, messages_after: event.messagesAfter },
          event.at,
        );
        return;
      }
      case 'output_invalid': {
        const task = tasks.get(event.taskId);
        if (task === undefined) return;
        task.span.addEvent(
          'dualloop.output_invalid',
          // The issues quote the answer (keys, values): content, recorded only when asked.
          { turn: event.turn, outcome: event.outcome, repairs: event.repairs, wrap_up: event.wrapUp, issue_count: event.issues.length, ...(recordContent ? { issues: content(event.issues) } : {}) },
          event.at,
        );
        return;
      }
      case 'guardrail_tripped': {
        const span = (event.toolCallId === undefined ? undefined : tools.get(event.toolCallId)?.span) ?? tasks.get(event.taskId)?.span ?? root;
        // The reason may quote what was checked: content, recorded only when asked.
        span.addEvent('dualloop.guardrail_tripped', { name: event.name, on: event.on, mode: event.mode, turn: event.turn, ...(recordContent ? { reason: content(event.reason) } : {}) }, event.at);
        return;
      }
      case 'policy_decision': {
        const tool = event.toolCallId === undefined ? undefined : tools.get(event.toolCallId);
        if (tool !== undefined) tool.awaitingApproval = event.decision === 'require_approval';
        const span = tool?.span ?? tasks.get(event.taskId)?.span ?? root;
        span.addEvent('dualloop.policy_decision', { decision: event.decision, reason: content(event.reason), subject: event.subject }, event.at);
        return;
      }
      case 'error':
      case 'warning': {
        const task = event.taskId === undefined ? undefined : tasks.get(event.taskId);
        if (event.type === 'error' && event.scope === 'model' && task !== undefined) task.modelError = event.message;
        (task?.span ?? root).addEvent(`dualloop.${event.type}`, { ...(event.type === 'error' ? { scope: event.scope } : {}), message: content(event.message) }, event.at);
        return;
      }
      case 'task_end': {
        const task = tasks.get(event.taskId);
        if (task === undefined) return;
        endOpen(event.at, event.taskId);
        tasks.delete(event.taskId);
        task.span.setAttributes({
          'gen_ai.usage.input_tokens': event.counters.inputTokens,
          'gen_ai.usage.output_tokens': event.counters.outputTokens,
          'dualloop.turns': event.counters.turns,
          'dualloop.tool_calls': event.counters.toolCalls,
          'dualloop.cost_usd': event.counters.costUsd,
        });
        stopAttributes(task.span, event.stop);
        task.span.end(event.at);
        return;
      }
      case 'workflow_end': {
        endOpen(event.at);
        for (const [taskId, task] of tasks) {
          task.span.setAttribute('dualloop.canceled', true);
          task.span.end(event.at);
          tasks.delete(taskId);
        }
        root.setAttributes({
          'gen_ai.usage.input_tokens': event.metrics.inputTokens,
          'gen_ai.usage.output_tokens': event.metrics.outputTokens,
          'dualloop.workflow_steps': event.metrics.workflowSteps,
          'dualloop.turns': event.metrics.turns,
          'dualloop.tool_calls': event.metrics.toolCalls,
          'dualloop.cost_usd': event.metrics.costUsd,
        });
        stopAttributes(root, event.stop);
        root.end(event.at);
        return;
      }
      default:
        return;
    }
  };
  return {
    listener: (event) => {
      try {
        handle(event);
      } catch {
        // A faulty tracer or exporter must not stop the run; the events still reach the store and logs.
      }
    },
    toolSpan: (toolCallId) => tools.get(toolCallId)?.span,
  };
}
