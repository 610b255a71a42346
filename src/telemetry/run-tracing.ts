import type { EventListener } from '../events/event-sink.js';
import { loadOtelApi, type OtelApi } from './otel-api.js';
import { modelAttributes } from './gen-ai-provider.js';
import { createSpanListener } from './span-listener.js';
import type { TelemetryOptions } from './telemetry-options.js';
import { formatTraceParent, parseTraceParent } from './trace-parent.js';

export interface RunTracingStart {
  readonly runId: string;
  readonly name: string | undefined;
  readonly resumed: boolean;
  /** The `traceparent` saved by the run's previous segment: the new root continues that trace and links to it. */
  readonly previous: string | undefined;
  /** A delegated run (`agentTool`): the run and tool call that started it, and that call's `execute_tool` span as a `traceparent`. */
  readonly parent?: { readonly runId: string; readonly toolCallId: string; readonly traceParent: string | undefined };
  readonly startTime: number;
}

export interface RunSpans {
  /** This segment's root span as a `traceparent`, saved in its `workflow_start` event. */
  readonly traceParent: string | undefined;
  readonly listener: EventListener;
  /** The open `execute_tool` span of a call, as a `traceparent`: a child run it delegates to starts under it. */
  toolTraceParent(toolCallId: string): string | undefined;
}

/** The kernel's only tie to OpenTelemetry: an event listener per run. No OTel types in its signature. */
export interface RunTracing {
  /** True when spans are recorded; a resume then reads the saved trace context. */
  active(): boolean;
  startRun(start: RunTracingStart): RunSpans | undefined;
}

/**
 * `undefined` when telemetry is off (`telemetry: false`). Otherwise the API is loaded at the first
 * run; without the package, or without a registered tracer provider, runs are not traced.
 */
export function createRunTracing(options: TelemetryOptions | false | undefined, model: { readonly provider: string; readonly modelId: string }): RunTracing | undefined {
  if (options === false) return undefined;
  const recordContent = options?.recordContent ?? process.env['OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT']?.toLowerCase() === 'true';
  const tracerOf = (api: typeof OtelApi): OtelApi.Tracer => (options?.tracer as OtelApi.Tracer | undefined) ?? api.trace.getTracer('dualloop');
  let noopProvider: OtelApi.TracerProvider | undefined;
  const active = () => {
    const api = loadOtelApi();
    if (api === undefined) return false;
    if (options?.tracer !== undefined) return true;
    const provider = api.trace.getTracerProvider();
    // An unregistered global provider delegates to the API's shared no-op provider.
    noopProvider ??= new api.ProxyTracerProvider().getDelegate();
    return !(provider instanceof api.ProxyTracerProvider) || provider.getDelegate() !== noopProvider;
  };
  return {
    active,
    startRun(start) {
      const api = loadOtelApi();
      if (api === undefined || !active()) return undefined;
      const tracer = tracerOf(api);
      const previous = parseTraceParent(start.previous);
      // A child run's segment starts under its call's span (a resumed child's call is the parent's new one); else it continues its own trace.
      const under = parseTraceParent(start.parent?.traceParent) ?? previous;
      const parent = under === undefined ? api.ROOT_CONTEXT : api.trace.setSpanContext(api.ROOT_CONTEXT, under);
      const root = tracer.startSpan(
        `invoke_workflow ${start.name ?? 'dualloop'}`,
        {
          kind: api.SpanKind.INTERNAL,
          startTime: start.startTime,
          attributes: {
            'gen_ai.operation.name': 'invoke_workflow',
            ...modelAttributes(model),
            'dualloop.run.id': start.runId,
            'dualloop.resumed': start.resumed,
            ...(start.name === undefined ? {} : { 'dualloop.run.name': start.name }),
            ...(start.parent === undefined ? {} : { 'dualloop.parent.run.id': start.parent.runId, 'dualloop.parent.tool_call.id': start.parent.toolCallId }),
          },
          ...(previous === undefined ? {} : { links: [{ context: previous, attributes: { 'dualloop.link': 'resumed_from' } }] }),
        },
        parent,
      );
      const traceParentOf = (span: OtelApi.Span | undefined) => {
        try {
          const context = span?.spanContext();
          return context !== undefined && api.isSpanContextValid(context) ? formatTraceParent(context) : undefined;
        } catch {
          return undefined; // a faulty tracer: the child run starts a trace of its own
        }
      };
      const spans = createSpanListener({ api, tracer, root, model, recordContent });
      return {
        traceParent: traceParentOf(root),
        listener: spans.listener,
        toolTraceParent: (toolCallId) => traceParentOf(spans.toolSpan(toolCallId)),
      };
    },
  };
}
