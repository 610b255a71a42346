import type { Compactor } from '../contracts/hooks.js';
import { memoryStore } from '../checkpoint/memory-store.js';
import { keepRecentTurns } from '../compaction/keep-recent-turns.js';
import type { CheckpointStore } from '../contracts/store.js';
import { createRunTracing, type RunTracing } from '../telemetry/run-tracing.js';
import { redactingStore } from '../redaction/redacting-store.js';
import type { Redactor } from '../redaction/redactor.js';
import { createRedactor } from '../redaction/secret-values.js';
import { systemClock, type Clock } from './clock.js';
import type { ResolvedOptions } from './options.js';
import { toolCatalog, type ToolCatalog } from './run-tools.js';

/** Validated options plus what is derived from them once per kernel. */
export interface KernelDeps extends ResolvedOptions {
  readonly clock: Clock;
  readonly compactor: Compactor;
  /** `memoryStore()` unless one was given; every write redacted (ADR/0100). */
  readonly store: CheckpointStore;
  /** Replaces the kernel's secrets in everything its runs record or report (ADR/0100). */
  readonly redactor: Redactor;
  /** The kernel's own tools; a run with tool sources adds theirs (src/kernel/run-tools.ts). */
  readonly ownTools: ToolCatalog;
  /** OpenTelemetry spans from each run's events; `undefined` with `telemetry: false`. */
  readonly tracing: RunTracing | undefined;
}

export function deriveDeps(options: ResolvedOptions): KernelDeps {
  const redactor = createRedactor({ redact: options.redact, models: [options.model, options.planner], tools: [...options.tools.values(), ...options.toolSources] });
  return {
    ...options,
    clock: options.clock ?? systemClock,
    compactor: options.compactor ?? keepRecentTurns(),
    store: redactingStore(options.store ?? memoryStore(), redactor),
    redactor,
    ownTools: toolCatalog(options.tools.values()),
    tracing: createRunTracing(options.telemetry, options.model),
  };
}
