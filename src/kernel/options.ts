import { z } from 'zod';
import { BoundsOverrideSchema, type BoundsOverride } from '../contracts/bounds.js';
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
import type { Tool, ToolSource } from '../contracts/tool.js';
import type { TelemetryOptions } from '../telemetry/telemetry-options.js';
import type { OnTaskStop } from '../contracts/workflow-protocol.js';
import { ConfigError, type ConfigIssue } from '../errors.js';
import { RedactValuesSchema } from '../redaction/secret-values.js';
import { AutoRulesSchema, type AutoRules } from '../strategies/auto-rules.js';
import { StrategyName } from '../strategies/strategy.js';
import { toolListIssues } from '../tools/define-tool.js';
import type { ToolExecution } from '../tools/tool-port.js';
import { LimitsSchema, type LimitsOption } from '../contracts/limits.js';
import type { Clock } from '../contracts/clock.js';
import type { InspectObserver, KernelLogger } from '../events/observers.js';
import { TaskInputSchema, type TaskInput } from './tasks.js';
import { zodIssues } from '../contracts/zod-issues.js';
import { lazySchema } from '../contracts/lazy-schema.js';
import type { Guardrail } from '../contracts/guardrails.js';
import { RateLimitSchema } from '../providers/rate-limit-schema.js';
import { GuardrailListSchema } from '../guardrails/guardrail-schema.js';

export interface KernelOptions {
  readonly model: Model;
  /**
   * Tools from `defineTool`, and tool sources such as `mcpTools(...)`, which each run opens at its
   * first need and closes when it ends. The model sees the tools first, then each source's, in order.
   */
  readonly tools?: readonly (Tool | ToolSource)[];
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
  /**
   * More items of the workflow's fingerprint, by name (the CLI adds a manifest's tools module and
   * cassette hashes): a resume, fork or worker refuses a run whose items differ (docs/operations.md).
   */
  readonly fingerprint?: Readonly<Record<string, string>>;
  /**
   * Checks that stop a task by name (docs/guardrails.md): every task runs all of them unless it
   * names its own (`guardrails` on the task).
   */
  readonly guardrails?: readonly Guardrail[];
}

const fn = (what: string) => z.custom<(...args: never[]) => unknown>((value) => typeof value === 'function', `must be a function (${what})`);
const hasMethods = (what: string, ...methods: string[]) =>
  z.custom<object>(
    (value) => typeof value === 'object' && value !== null && methods.every((method) => typeof (value as Record<string, unknown>)[method] === 'function'),
    `must be ${what} (an object with ${methods.map((method) => `${method}()`).join(', ')})`,
  );
const deliveryMode = lazySchema(() => z.enum(['one-at-a-time', 'all']));

const OptionsSchema = lazySchema(() => z.strictObject({
  model: hasMethods('a Model', 'call'),
  tools: z.array(z.unknown()).optional(),
  system: z.string().optional(),
  tasks: z.array(TaskInputSchema()).min(1, 'must hold at least one task').optional(),
  bounds: BoundsOverrideSchema().optional(),
  store: hasMethods('a CheckpointStore', 'createRun', 'saveCheckpoint', 'loadCheckpoint', 'listCheckpoints', 'appendEvent').optional(),
  policy: z
    .object({ checkTask: fn('checkTask').optional(), checkToolCall: fn('checkToolCall').optional() })
    .optional(),
  stopEvaluators: z.strictObject({ inner: z.array(fn('inner stop evaluator')).optional(), outer: z.array(fn('outer stop evaluator')).optional() }).optional(),
  compactor: hasMethods('a Compactor', 'shouldCompact', 'compact').optional(),
  toolExecution: z.enum(['sequential', 'parallel', 'batch']).optional(),
  toolConcurrency: z.number().int().positive().optional(),
  steeringMode: deliveryMode().optional(),
  followUpMode: deliveryMode().optional(),
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
  autoRules: AutoRulesSchema().optional(),
  telemetry: z.union([z.literal(false), z.strictObject({ tracer: hasMethods('an OpenTelemetry Tracer', 'startSpan').optional(), recordContent: z.boolean().optional() })]).optional(),
  redact: RedactValuesSchema().optional(),
  limits: LimitsSchema().optional(),
  fingerprint: z.record(z.string(), z.string()).optional(),
  guardrails: GuardrailListSchema().optional(),
}));

/** Options that passed validation, with the tools by name and the tool sources apart, in order. */
export interface ValidatedOptions {
  readonly options: KernelOptions;
  readonly tools: ReadonlyMap<string, Tool>;
  /** Opened per run, at its first need (`RunTools`, ADR/0143). */
  readonly sources: readonly ToolSource[];
}

/** A model's `rateLimit`, when it has one, must be one (a custom Model may carry anything). */
function rateLimitIssues(model: unknown, path: string): ConfigIssue[] {
  const limit = (model as { rateLimit?: unknown } | null | undefined)?.rateLimit;
  if (limit === undefined) return [];
  const parsed = RateLimitSchema().safeParse(limit);
  return parsed.success ? [] : zodIssues(parsed.error, `${path}.rateLimit`);
}

/** Validates every option at once; throws one ConfigError listing every bad field. No side effects. */
export function validateOptions(options: KernelOptions): ValidatedOptions {
  const parsed = OptionsSchema().safeParse(options);
  const { tools, sources, issues: toolIssues } = toolListIssues(options?.tools ?? [], { sources: true });
  const issues: ConfigIssue[] = [...(parsed.success ? [] : zodIssues(parsed.error)), ...toolIssues, ...rateLimitIssues(options?.model, 'model'), ...rateLimitIssues(options?.planner, 'planner')];
  if (issues.length > 0 || !parsed.success) throw new ConfigError({ message: 'Invalid dualloop options', issues });
  return { options, tools, sources };
}
