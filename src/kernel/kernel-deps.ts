/**
 * What a kernel is built from: its options, validated once and composed into role ports
 * (ADR/0241). Each lower layer defines the port it needs (`ToolPort` in src/tools, `StrategyDeps`
 * in src/strategies, `Model`, `CheckpointStore`, `PolicyGate`, `Clock` in src/contracts, the
 * logger and inspection observer in src/events) and never imports the kernel; the kernel hands
 * each service the roles it uses.
 */
import { memoryStore } from '../checkpoint/memory-store.js';
import { keepRecentTurns } from '../compaction/keep-recent-turns.js';
import { DEFAULT_BOUNDS, resolveBounds, type Bounds } from '../contracts/bounds.js';
import { systemClock, type Clock } from '../contracts/clock.js';
import type { Compactor, EphemeralMessages, InnerStopEvaluator, OuterStopEvaluator, ShouldStopAfterTurn, TransformContext } from '../contracts/hooks.js';
import { resolveLimits } from '../contracts/limits.js';
import type { Model } from '../contracts/model.js';
import type { Guardrail } from '../contracts/guardrails.js';
import type { PolicyGate } from '../contracts/policy.js';
import type { DeliveryMode } from '../contracts/queues.js';
import type { CheckpointStore } from '../contracts/store.js';
import type { OnTaskStop } from '../contracts/workflow-protocol.js';
import type { InspectObserver, KernelLogger } from '../events/observers.js';
import { redactingStore } from '../redaction/redacting-store.js';
import type { Redactor } from '../redaction/redactor.js';
import { createRedactor } from '../redaction/secret-values.js';
import { resolveAutoRules, type ResolvedAutoRules } from '../strategies/auto-rules.js';
import type { StrategyName } from '../strategies/strategy.js';
import { createRunTracing, type RunTracing } from '../telemetry/run-tracing.js';
import { toolCatalog } from '../tools/run-tools.js';
import type { ToolPort } from '../tools/tool-port.js';
import { validateOptions, type KernelOptions } from './options.js';
import { LEASE_TTL_MS } from './run-lease.js';
import type { TaskInput } from './tasks.js';

/** The model port: the model that runs the turns and the one that plans (the same by default). */
export interface ModelRole {
  readonly model: Model;
  readonly planner: Model;
}

/** Where a run's events go besides its stream and its store (the store listener is the store's). */
export interface EventRole {
  readonly logger: KernelLogger | undefined;
  readonly inspect: InspectObserver | undefined;
  /** OpenTelemetry spans from each run's events; `undefined` with `telemetry: false`. */
  readonly tracing: RunTracing | undefined;
}

/** Who decides when a loop stops, besides the built-in conditions. */
export interface StopRole {
  readonly inner: readonly InnerStopEvaluator[];
  readonly outer: readonly OuterStopEvaluator[];
  readonly shouldStopAfterTurn: ShouldStopAfterTurn | undefined;
  /** Repetitions of one tool call that stop a task `loop_detected`; `undefined` when off. */
  readonly loopThreshold: number | undefined;
}

/** What the model sees: the system prompt, the transcript's compaction, the hooks on a call's messages, the queues. */
export interface ContextRole {
  readonly system: string | undefined;
  readonly compactor: Compactor;
  readonly transformContext: TransformContext | undefined;
  readonly ephemeralMessages: EphemeralMessages | undefined;
  readonly steeringMode: DeliveryMode;
  readonly followUpMode: DeliveryMode;
}

/** How the loops run: bounds, where tasks come from, what a stopped task does, how runs are kept. */
export interface LoopSettings {
  readonly bounds: Bounds;
  readonly tasks: readonly TaskInput[] | undefined;
  readonly goal: string | undefined;
  readonly strategy: StrategyName;
  readonly autoRules: ResolvedAutoRules;
  readonly wrapUpOnBound: boolean;
  readonly onTaskStop: OnTaskStop;
  /** Aborts every run of the kernel. */
  readonly signal: AbortSignal | undefined;
  readonly leaseMs: number;
  /** Kept by the store with each run. */
  readonly name: string | undefined;
}

/** The kernel's guardrails (docs/guardrails.md), and their names (a task may name some of them). */
export interface GuardrailRole {
  readonly list: readonly Guardrail[];
  readonly names: ReadonlySet<string>;
}

export interface KernelDeps {
  readonly models: ModelRole;
  readonly tools: ToolPort;
  /** `memoryStore()` unless one was given; every write redacted (ADR/0100). */
  readonly store: CheckpointStore;
  readonly clock: Clock;
  readonly events: EventRole;
  readonly policy: PolicyGate;
  /** Replaces the kernel's secrets in everything its runs record or report (ADR/0100). */
  readonly redactor: Redactor;
  readonly stop: StopRole;
  readonly context: ContextRole;
  readonly loop: LoopSettings;
  readonly guardrails: GuardrailRole;
}

/** Validates the options (one ConfigError naming every bad field, before any side effect) and composes the roles. */
export function createKernelDeps(input: KernelOptions): KernelDeps {
  const { options, tools, sources } = validateOptions(input);
  const model = options.model;
  const planner = options.planner ?? model;
  const limits = resolveLimits(options.limits);
  const redactor = createRedactor({ redact: options.redact ?? [], models: [model, planner], tools: [...tools.values(), ...sources], limits });
  return {
    models: { model, planner },
    tools: {
      own: toolCatalog(tools.values()),
      sources,
      execution: options.toolExecution ?? 'batch',
      concurrency: options.toolConcurrency ?? Number.POSITIVE_INFINITY,
      beforeToolCall: options.beforeToolCall,
      afterToolCall: options.afterToolCall,
      limits,
    },
    store: redactingStore(options.store ?? memoryStore(), redactor),
    clock: options.clock ?? systemClock,
    events: { logger: options.logger, inspect: options.inspect, tracing: createRunTracing(options.telemetry, model) },
    policy: options.policy ?? {},
    redactor,
    stop: {
      inner: options.stopEvaluators?.inner ?? [],
      outer: options.stopEvaluators?.outer ?? [],
      shouldStopAfterTurn: options.shouldStopAfterTurn,
      loopThreshold: options.loopDetection === false ? undefined : (options.loopDetection?.threshold ?? 3),
    },
    context: {
      system: options.system,
      compactor: options.compactor ?? keepRecentTurns(),
      transformContext: options.transformContext,
      ephemeralMessages: options.ephemeralMessages,
      steeringMode: options.steeringMode ?? 'one-at-a-time',
      followUpMode: options.followUpMode ?? 'one-at-a-time',
    },
    loop: {
      bounds: resolveBounds(DEFAULT_BOUNDS, options.bounds),
      tasks: options.tasks,
      goal: options.goal,
      strategy: options.strategy ?? 'react',
      autoRules: resolveAutoRules(options.autoRules, planner),
      wrapUpOnBound: options.wrapUpOnBound ?? false,
      onTaskStop: options.onTaskStop ?? 'halt',
      signal: options.signal,
      leaseMs: options.leaseMs ?? LEASE_TTL_MS,
      name: options.name,
    },
    guardrails: { list: options.guardrails ?? [], names: new Set((options.guardrails ?? []).map((guardrail) => guardrail.name)) },
  };
}
