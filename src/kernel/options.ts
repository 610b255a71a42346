import { z } from 'zod';
import { BoundsOverrideSchema, DEFAULT_BOUNDS, resolveBounds, type Bounds, type BoundsOverride } from '../contracts/bounds.js';
import type {
  AfterToolCall,
  BeforeToolCall,
  Compactor,
  EphemeralMessages,
  InnerStopEvaluator,
  OuterStopEvaluator,
  ShouldStopAfterTurn,
  TransformContext,
} from '../contracts/hooks.js';
import type { Model } from '../contracts/model.js';
import type { PolicyGate } from '../contracts/policy.js';
import type { DeliveryMode } from '../contracts/queues.js';
import type { CheckpointStore } from '../contracts/store.js';
import type { Tool } from '../contracts/tool.js';
import type { TelemetryOptions } from '../telemetry/telemetry-options.js';
import type { OnTaskStop } from '../contracts/workflow-protocol.js';
import { ConfigError, type ConfigIssue } from '../errors.js';
import { MIN_SECRET_LENGTH } from '../redaction/secret-values.js';
import { AutoRulesSchema, resolveAutoRules, type AutoRules, type ResolvedAutoRules } from '../strategies/auto-rules.js';
import { StrategyName } from '../strategies/strategy.js';
import { toolListIssues } from '../tools/define-tool.js';
import { LimitsSchema, resolveLimits, type Limits, type LimitsOption } from '../contracts/limits.js';
import type { Clock } from './clock.js';
import { LEASE_TTL_MS } from './run-lease.js';
import { TaskInputSchema, type TaskInput } from './tasks.js';
import { zodIssues } from './zod-issues.js';

/** The pino-compatible logger the kernel writes events to; it derives a child per run. */
export interface KernelLogger {
  child(bindings: Record<string, unknown>, options?: Record<string, unknown>): KernelLogger;
  debug(object: object, message?: string): void;
  info(object: object, message?: string): void;
  warn(object: object, message?: string): void;
  error(object: object, message?: string): void;
}

/** An XState inspection observer (e.g. from `@statelyai/inspect`), passed to `createActor`. */
export type InspectObserver = ((inspectionEvent: unknown) => void) | { next?: (inspectionEvent: unknown) => void };

export type ToolExecution = 'sequential' | 'parallel' | 'batch';

export interface KernelOptions {
  readonly model: Model;
  readonly tools?: readonly Tool[];
  readonly system?: string;
  readonly tasks?: readonly TaskInput[];
  readonly bounds?: BoundsOverride;
  readonly store?: CheckpointStore;
  readonly policy?: PolicyGate;
  readonly stopEvaluators?: { readonly inner?: readonly InnerStopEvaluator[]; readonly outer?: readonly OuterStopEvaluator[] };
  readonly compactor?: Compactor;
  readonly toolExecution?: ToolExecution;
  /** Most tool calls running at once in `parallel` and `batch` modes; unlimited by default. */
  readonly toolConcurrency?: number;
  readonly steeringMode?: DeliveryMode;
  readonly followUpMode?: DeliveryMode;
  readonly beforeToolCall?: BeforeToolCall;
  readonly afterToolCall?: AfterToolCall;
  readonly transformContext?: TransformContext;
  readonly ephemeralMessages?: EphemeralMessages;
  readonly shouldStopAfterTurn?: ShouldStopAfterTurn;
  /** A task stopped by a count bound gets one last tool-less call for its best answer. */
  readonly wrapUpOnBound?: boolean;
  /** What the workflow does when a task stops for anything but natural completion (default `halt`). */
  readonly onTaskStop?: OnTaskStop;
  /** The same tool call this many times in a row stops the task `loop_detected`; `false` turns it off. Default 3. */
  readonly loopDetection?: { readonly threshold: number } | false;
  readonly logger?: KernelLogger;
  readonly inspect?: InspectObserver;
  readonly signal?: AbortSignal;
  readonly clock?: Clock;
  /**
   * How long a run's lease lives without renewal (default 30,000 ms), judged by the store's clock;
   * renewed every third of it. Another process can take a run over once it expired (ADR/0180).
   */
  readonly leaseMs?: number;
  /** A name for the run, kept by the store (the CLI uses the manifest name). */
  readonly name?: string;
  /** Where the outer loop's tasks come from (default `react`): docs/strategies.md. */
  readonly strategy?: StrategyName;
  /** The model that writes and revises plans (plan strategies; `auto` classification with `classify: true`). Defaults to `model`. */
  readonly planner?: Model;
  /** What the planner turns into steps. Defaults to the tasks (numbered when several); with no tasks, the goal is the one task. */
  readonly goal?: string;
  /** How `auto` picks a strategy. */
  readonly autoRules?: AutoRules;
  /** OpenTelemetry GenAI spans (docs/observability.md): on with the global tracer when `@opentelemetry/api` is installed; `false` turns them off. */
  readonly telemetry?: TelemetryOptions | false;
  /**
   * Secret values to replace by `[redacted]` wherever they occur in what the runs record or
   * report (events, logs, stores, results), besides the models' own keys and headers (ADR/0100).
   */
  readonly redact?: readonly string[];
  /** Size and shape limits on tool results, tool arguments and model text (docs/security.md); every one has a default. */
  readonly limits?: LimitsOption;
}

export interface ResolvedOptions {
  readonly model: Model;
  readonly tools: ReadonlyMap<string, Tool>;
  readonly system: string | undefined;
  readonly tasks: readonly TaskInput[] | undefined;
  readonly bounds: Bounds;
  readonly store: CheckpointStore | undefined;
  readonly policy: PolicyGate;
  readonly innerEvaluators: readonly InnerStopEvaluator[];
  readonly outerEvaluators: readonly OuterStopEvaluator[];
  readonly compactor: Compactor | undefined;
  readonly toolExecution: ToolExecution;
  readonly toolConcurrency: number;
  readonly steeringMode: DeliveryMode;
  readonly followUpMode: DeliveryMode;
  readonly beforeToolCall: BeforeToolCall | undefined;
  readonly afterToolCall: AfterToolCall | undefined;
  readonly transformContext: TransformContext | undefined;
  readonly ephemeralMessages: EphemeralMessages | undefined;
  readonly shouldStopAfterTurn: ShouldStopAfterTurn | undefined;
  readonly wrapUpOnBound: boolean;
  readonly onTaskStop: OnTaskStop;
  readonly loopThreshold: number | undefined;
  readonly logger: KernelLogger | undefined;
  readonly inspect: InspectObserver | undefined;
  readonly signal: AbortSignal | undefined;
  readonly clock: Clock | undefined;
  readonly leaseMs: number;
  readonly name: string | undefined;
  readonly strategy: StrategyName;
  readonly planner: Model;
  readonly goal: string | undefined;
  readonly autoRules: ResolvedAutoRules;
  readonly telemetry: TelemetryOptions | false | undefined;
  readonly redact: readonly string[];
  readonly limits: Limits;
}

const fn = (what: string) => z.custom<(...args: never[]) => unknown>((value) => typeof value === 'function', `must be a function (${what})`);
const hasMethods = (what: string, ...methods: string[]) =>
  z.custom<object>(
    (value) => typeof value === 'object' && value !== null && methods.every((method) => typeof (value as Record<string, unknown>)[method] === 'function'),
    `must be ${what} (an object with ${methods.map((method) => `${method}()`).join(', ')})`,
  );
const deliveryMode = z.enum(['one-at-a-time', 'all']);

const OptionsSchema = z.strictObject({
  model: hasMethods('a Model', 'call'),
  tools: z.array(z.unknown()).optional(),
  system: z.string().optional(),
  tasks: z.array(TaskInputSchema).min(1, 'must hold at least one task').optional(),
  bounds: BoundsOverrideSchema.optional(),
  store: hasMethods('a CheckpointStore', 'createRun', 'saveCheckpoint', 'loadCheckpoint', 'listCheckpoints', 'appendEvent').optional(),
  policy: z
    .object({ checkTask: fn('checkTask').optional(), checkToolCall: fn('checkToolCall').optional() })
    .optional(),
  stopEvaluators: z.strictObject({ inner: z.array(fn('inner stop evaluator')).optional(), outer: z.array(fn('outer stop evaluator')).optional() }).optional(),
  compactor: hasMethods('a Compactor', 'shouldCompact', 'compact').optional(),
  toolExecution: z.enum(['sequential', 'parallel', 'batch']).optional(),
  toolConcurrency: z.number().int().positive().optional(),
  steeringMode: deliveryMode.optional(),
  followUpMode: deliveryMode.optional(),
  beforeToolCall: fn('beforeToolCall').optional(),
  afterToolCall: fn('afterToolCall').optional(),
  transformContext: fn('transformContext').optional(),
  ephemeralMessages: fn('ephemeralMessages').optional(),
  shouldStopAfterTurn: fn('shouldStopAfterTurn').optional(),
  wrapUpOnBound: z.boolean().optional(),
  onTaskStop: z.enum(['halt', 'continue']).optional(),
  loopDetection: z.union([z.literal(false), z.strictObject({ threshold: z.number().int().min(2) })]).optional(),
  logger: hasMethods('a pino logger', 'child', 'debug', 'info', 'warn', 'error').optional(),
  inspect: z.union([fn('inspection observer'), z.object({ next: fn('next') })]).optional(),
  signal: z.custom<AbortSignal>((value) => value instanceof AbortSignal, 'must be an AbortSignal').optional(),
  clock: hasMethods('a Clock', 'now', 'setTimeout', 'clearTimeout').optional(),
  leaseMs: z.number().int().min(100, 'must be at least 100 ms').optional(),
  name: z.string().min(1).optional(),
  strategy: StrategyName.optional(),
  planner: hasMethods('a Model', 'call').optional(),
  goal: z.string().trim().min(1, 'must be a non-empty goal').optional(),
  autoRules: AutoRulesSchema.optional(),
  telemetry: z.union([z.literal(false), z.strictObject({ tracer: hasMethods('an OpenTelemetry Tracer', 'startSpan').optional(), recordContent: z.boolean().optional() })]).optional(),
  redact: z.array(z.string().min(MIN_SECRET_LENGTH, `must be at least ${MIN_SECRET_LENGTH} characters (a shorter value would redact ordinary text)`)).optional(),
  limits: LimitsSchema.optional(),
});

/** Validates every option at once; throws one ConfigError listing every bad field. No side effects. */
export function resolveOptions(options: KernelOptions): ResolvedOptions {
  const parsed = OptionsSchema.safeParse(options);
  const { tools, issues: toolIssues } = toolListIssues(options?.tools ?? []);
  const issues: ConfigIssue[] = [...(parsed.success ? [] : zodIssues(parsed.error)), ...toolIssues];
  if (issues.length > 0 || !parsed.success) throw new ConfigError({ message: 'Invalid dualloop options', issues });
  const value = options;
  return {
    model: value.model,
    tools,
    system: value.system,
    tasks: value.tasks,
    bounds: resolveBounds(DEFAULT_BOUNDS, value.bounds),
    store: value.store,
    policy: value.policy ?? {},
    innerEvaluators: value.stopEvaluators?.inner ?? [],
    outerEvaluators: value.stopEvaluators?.outer ?? [],
    compactor: value.compactor,
    toolExecution: value.toolExecution ?? 'batch',
    toolConcurrency: value.toolConcurrency ?? Number.POSITIVE_INFINITY,
    steeringMode: value.steeringMode ?? 'one-at-a-time',
    followUpMode: value.followUpMode ?? 'one-at-a-time',
    beforeToolCall: value.beforeToolCall,
    afterToolCall: value.afterToolCall,
    transformContext: value.transformContext,
    ephemeralMessages: value.ephemeralMessages,
    shouldStopAfterTurn: value.shouldStopAfterTurn,
    wrapUpOnBound: value.wrapUpOnBound ?? false,
    onTaskStop: value.onTaskStop ?? 'halt',
    loopThreshold: value.loopDetection === false ? undefined : (value.loopDetection?.threshold ?? 3),
    logger: value.logger,
    inspect: value.inspect,
    signal: value.signal,
    clock: value.clock,
    leaseMs: value.leaseMs ?? LEASE_TTL_MS,
    name: value.name,
    strategy: value.strategy ?? 'react',
    planner: value.planner ?? value.model,
    goal: value.goal,
    autoRules: resolveAutoRules(value.autoRules, value.planner ?? value.model),
    telemetry: value.telemetry,
    redact: value.redact ?? [],
    limits: resolveLimits(value.limits),
  };
}
