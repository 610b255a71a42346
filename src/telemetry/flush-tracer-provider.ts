import { loadedOtelApi } from './otel-api.js';

/** What a registered SDK provider may offer beyond the API's `TracerProvider` (the SDK's BasicTracerProvider has both). */
interface Closable {
  shutdown?: () => Promise<void>;
  forceFlush?: () => Promise<void>;
}

/** How long the CLI waits for the user's exporter before exiting anyway. */
export const TRACER_FLUSH_TIMEOUT_MS = 5_000;

/**
 * Before the CLI exits (`process.exit` drops whatever a batching span processor still holds), ends
 * the global tracer provider the user's program registered: `shutdown()` when it has one (it
 * flushes, then closes the exporters), else `forceFlush()`. Reached through `@opentelemetry/api`
 * alone, and only when a run loaded it. Never rejects, and settles within `timeoutMs` whatever the
 * exporter does; returns what went wrong, for a warning, or nothing.
 */
export async function flushTracerProvider(timeoutMs: number = TRACER_FLUSH_TIMEOUT_MS): Promise<string | undefined> {
  const api = loadedOtelApi();
  if (api === undefined) return undefined;
  const global = api.trace.getTracerProvider() as { getDelegate?: () => unknown };
  // The global is the API's proxy; the provider the program registered is its delegate.
  const provider = (typeof global.getDelegate === 'function' ? global.getDelegate() : global) as Closable;
  const end = typeof provider.shutdown === 'function' ? 'shutdown' : typeof provider.forceFlush === 'function' ? 'forceFlush' : undefined;
  if (end === undefined) return undefined;
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`the tracer provider's ${end}() did not finish within ${timeoutMs} ms: spans not yet exported are lost`), timeoutMs);
  });
  try {
    const ended = Promise.resolve()
      .then(() => provider[end]!())
      .then(
        () => undefined,
        (error: unknown) => `the tracer provider's ${end}() failed: ${error instanceof Error ? error.message : String(error)}`,
      );
    return await Promise.race([ended, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
