import type { Compactor } from '../contracts/hooks.js';
import type { ToolDescriptor } from '../contracts/model.js';
import { memoryStore } from '../checkpoint/memory-store.js';
import { keepRecentTurns } from '../compaction/keep-recent-turns.js';
import type { CheckpointStore } from '../contracts/store.js';
import { createRunTracing, type RunTracing } from '../telemetry/run-tracing.js';
import { redactingStore } from '../redaction/redacting-store.js';
import type { Redactor } from '../redaction/redactor.js';
import { createRedactor } from '../redaction/secret-values.js';
import { systemClock, type Clock } from './clock.js';
import type { ResolvedOptions } from './options.js';

/** Validated options plus what is derived from them once per kernel. */
export interface KernelDeps extends ResolvedOptions {
  readonly clock: Clock;
  readonly compactor: Compactor;
  /** `memoryStore()` unless one was given; every write redacted (ADR/0100). */
  readonly store: CheckpointStore;
  /** Replaces the kernel's secrets in everything its runs record or report (ADR/0100). */
  readonly redactor: Redactor;
  readonly toolDescriptors: readonly ToolDescriptor[];
  /** OpenTelemetry spans from each run's events; `undefined` with `telemetry: false`. */
  readonly tracing: RunTracing | undefined;
}

export function deriveDeps(options: ResolvedOptions): KernelDeps {
  const toolDescriptors = [...options.tools.values()].map((tool) => ({
    name: tool.name,
    description: tool.description,
    parameters: tool.jsonSchema,
  }));
  const redactor = createRedactor({ redact: options.redact, models: [options.model, options.planner], tools: options.tools.values(), limits: options.limits });
  return {
    ...options,
    clock: options.clock ?? systemClock,
    compactor: options.compactor ?? keepRecentTurns(),
    store: redactingStore(options.store ?? memoryStore(), redactor),
    redactor,
    toolDescriptors,
    tracing: createRunTracing(options.telemetry, options.model),
  };
}
