import type { OtelApi } from './otel-api.js';

type SpanContext = OtelApi.SpanContext;

const TRACE_PARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** A span context as a W3C `traceparent` value (saved in the run's `workflow_start` event). */
export function formatTraceParent(context: SpanContext): string {
  return `00-${context.traceId}-${context.spanId}-${(context.traceFlags & 0xff).toString(16).padStart(2, '0')}`;
}

/** The span context of a saved `traceparent`, marked remote; `undefined` when malformed or all zeros. */
export function parseTraceParent(value: string | undefined): SpanContext | undefined {
  const match = value === undefined ? null : TRACE_PARENT.exec(value);
  if (match === null) return undefined;
  const [, traceId, spanId, flags] = match as unknown as [string, string, string, string];
  if (/^0+$/.test(traceId) || /^0+$/.test(spanId)) return undefined;
  return { traceId, spanId, traceFlags: Number.parseInt(flags, 16), isRemote: true };
}
