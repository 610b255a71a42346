/**
 * An OpenTelemetry tracer (`@opentelemetry/api`'s `Tracer`), typed structurally so that dualloop's
 * public types do not require the API package: pass `provider.getTracer('…')` or `trace.getTracer('…')`.
 */
export interface TelemetryTracer {
  startSpan(name: string, options?: never, context?: never): unknown;
}

/** The `telemetry` option: OpenTelemetry spans following the GenAI semantic conventions (docs/observability.md). */
export interface TelemetryOptions {
  /** Default: the global tracer of `@opentelemetry/api` (`trace.getTracer('dualloop')`) when the package is installed. */
  readonly tracer?: TelemetryTracer;
  /**
   * Record message contents (task text, model output, tool arguments and results) as span
   * attributes, secrets redacted. Default: off, unless `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`.
   */
  readonly recordContent?: boolean;
}
