import { trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterEach } from 'vitest';

/**
 * A tracer whose spans the SDK's in-memory exporter keeps, emptied after each test (and the global
 * provider a test may register, removed).
 */
export function useMemoryTracing() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  afterEach(() => {
    exporter.reset();
    trace.disable();
  });
  return { exporter, provider, tracer: provider.getTracer('dualloop-test'), spans: (): ReadableSpan[] => exporter.getFinishedSpans() };
}

/** The finished span whose span id is `span`'s parent, if it was exported. */
export function parentOf(spans: readonly ReadableSpan[], span: ReadableSpan): ReadableSpan | undefined {
  return spans.find((candidate) => candidate.spanContext().spanId === span.parentSpanContext?.spanId);
}

/** The tree as `name` lines, children indented, in start order (spans starting together: in end order). */
export function spanTree(spans: readonly ReadableSpan[]): string[] {
  const all = [...spans].sort((a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1]);
  const lines: string[] = [];
  const walk = (parentId: string | undefined, depth: number) => {
    for (const span of all.filter((candidate) => candidate.parentSpanContext?.spanId === parentId || (parentId === undefined && parentOf(spans, candidate) === undefined))) {
      if (lines.some((line) => line.endsWith(`#${span.spanContext().spanId}`))) continue;
      lines.push(`${'  '.repeat(depth)}${span.name}#${span.spanContext().spanId}`);
      walk(span.spanContext().spanId, depth + 1);
    }
  };
  walk(undefined, 0);
  return lines.map((line) => line.replace(/#.*$/, ''));
}
