import { createRequire } from 'node:module';
import type * as OtelApi from '@opentelemetry/api';

export type { OtelApi };

let cached: typeof OtelApi | null | undefined;

/**
 * `@opentelemetry/api` (an optional peer dependency), loaded on first use and only then, or
 * `undefined` when it is not installed. Loaded synchronously with `require` so that a run can start
 * its root span before its first event; the API keeps its globals (tracer provider, context keys)
 * under `Symbol.for` keys, so this copy and the application's ESM import share them.
 */
export function loadOtelApi(): typeof OtelApi | undefined {
  if (cached === undefined) {
    try {
      cached = createRequire(import.meta.url)('@opentelemetry/api') as typeof OtelApi;
    } catch {
      cached = null;
    }
  }
  return cached ?? undefined;
}

/** The API when a run already loaded it; never loads it. */
export function loadedOtelApi(): typeof OtelApi | undefined {
  return cached ?? undefined;
}
