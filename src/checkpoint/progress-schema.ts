/**
 * Zod schemas of the run state that checkpoints carry (both versions): read back from a store,
 * never trusted. The entry and envelope schemas are built from these, on first use (ADR/0390).
 */
import { z } from 'zod';
import { lazySchema } from '../contracts/lazy-schema.js';
import { InnerBoundsSchema } from '../contracts/bounds.js';
import { MessageSchema, ToolCallSchema } from '../contracts/message-schema.js';
import { ErrorCode } from '../contracts/error-codes.js';
import { StopReason, type StopCondition } from '../contracts/stop.js';

export const UsageSchema = lazySchema(() => z.object({ inputTokens: z.number().nonnegative(), outputTokens: z.number().nonnegative() }));

export const StopConditionSchema = lazySchema(() => z
  .object({
    reason: StopReason,
    detail: z.string(),
    // A code a newer dualloop wrote is dropped, not a corrupt checkpoint.
    code: ErrorCode.optional().catch(undefined),
    bound: z.object({ name: z.string(), limit: z.number(), value: z.number() }).optional(),
    guardrail: z.object({ name: z.string(), on: z.enum(['input', 'output', 'tool_call', 'tool_result']), reason: z.string() }).optional().catch(undefined),
    at: z.number(),
  })
  // Every error stop carries a code (ADR/0242): one written without (before codes, or a code
  // this version does not know) reads back as `unrecorded_failure`; other stops carry none.
  .transform(({ code, ...stop }): StopCondition =>
    stop.reason === 'error' ? { ...stop, reason: 'error', code: code ?? 'unrecorded_failure' } : { ...stop, reason: stop.reason },
  ));

export const TurnResultSchema = lazySchema(() => z.object({
  turn: z.number().int().positive(),
  assistantText: z.string(),
  toolCalls: z.array(z.object({ id: z.string(), name: z.string(), args: z.unknown(), proposedArgs: z.unknown().optional(), result: z.unknown(), isError: z.boolean() })),
  stop: StopConditionSchema().optional(),
  usage: UsageSchema(),
  costUsd: z.number().nonnegative(),
  runtimeMs: z.number().nonnegative(),
}));

export const TaskResultSchema = lazySchema(() => z.object({
  taskId: z.string(),
  index: z.number().int().nonnegative(),
  description: z.string(),
  stop: StopConditionSchema(),
  turns: z.array(TurnResultSchema()),
  turnCount: z.number().int().nonnegative(),
  toolCalls: z.number().int().nonnegative(),
  // A string, or the parsed value of a typed output (JSON).
  output: z.unknown(),
  usage: UsageSchema(),
  costUsd: z.number().nonnegative(),
  runtimeMs: z.number().nonnegative(),
  // A finish reason this version does not know is dropped, not a corrupt result.
  wrapUp: TurnResultSchema().extend({ finishReason: z.enum(['stop', 'tool_calls', 'length', 'content_filter', 'error', 'canceled']).optional().catch(undefined) }).optional(),
  failedItems: z.array(z.object({ taskId: z.string(), stop: StopConditionSchema() })).optional(),
}));

export const MetricsSchema = lazySchema(() => z.object({
  workflowSteps: z.number().int().nonnegative(),
  turns: z.number().int().nonnegative(),
  toolCalls: z.number().int().nonnegative(),
  inputTokens: z.number().nonnegative(),
  outputTokens: z.number().nonnegative(),
  costUsd: z.number().nonnegative(),
  runtimeMs: z.number().nonnegative(),
}));

const QueuedSchema = lazySchema(() => z.object({ id: z.number().int(), content: z.string(), taskId: z.string().optional() }));
export const QueuesSchema = lazySchema(() => z.object({ steering: z.array(QueuedSchema()), followUp: z.array(QueuedSchema()) }));

export const TaskSpecSchema = lazySchema(() => z.object({
  id: z.string().min(1),
  index: z.number().int().nonnegative(),
  description: z.string(),
  bounds: InnerBoundsSchema(),
  output: z.record(z.string(), z.unknown()).optional(),
  dependsOn: z.array(z.string()).optional(),
  forEach: z.string().optional(),
  forEachFailure: z.enum(['fail', 'collect']).optional(),
  guardrails: z.array(z.string()).optional(),
  item: z.object({ of: z.string(), position: z.number().int().nonnegative(), value: z.unknown() }).optional(),
}));

const ModelResponseSchema = lazySchema(() => z.object({
  type: z.literal('response'),
  text: z.string(),
  toolCalls: z.array(ToolCallSchema()),
  usage: UsageSchema(),
  costUsd: z.number().nonnegative(),
  finishReason: z.enum(['stop', 'tool_calls', 'length', 'content_filter']),
  warnings: z.array(z.string()).optional(),
}));

const RepeatSchema = lazySchema(() => z.object({ key: z.string(), count: z.number().int().nonnegative() }));
const PendingTurnSchema = lazySchema(() => z.object({ turn: z.number().int().positive(), response: ModelResponseSchema() }));

/** A task's counters: everything in its progress but the transcript and the turn results. */
export const TaskCountersShape = lazySchema(() => ({
  toolCalls: z.number().int().nonnegative(),
  usage: UsageSchema(),
  costUsd: z.number().nonnegative(),
  elapsedMs: z.number().nonnegative(),
  repeat: RepeatSchema(),
  followUpDue: z.boolean(),
  pending: PendingTurnSchema().optional(),
  // Typed outputs: repairs sent so far; absent when none (and in checkpoints written before them).
  outputRepairs: z.number().int().nonnegative().optional(),
}));

const ResumePointSchema = lazySchema(() => z.object({
  progress: z.object({ messages: z.array(MessageSchema()), turns: z.array(TurnResultSchema()), ...TaskCountersShape() }),
  queues: QueuesSchema(),
  delivered: z.array(z.number().int()),
  modelCallIndex: z.number().int().nonnegative(),
}));

export const ActiveTaskSchema = lazySchema(() => z.object({ task: TaskSpecSchema(), point: ResumePointSchema() }));

/** Describes the first few issues of a failed parse: `path: message; …`. */
export function describeIssues(error: z.ZodError, prefix = ''): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => `${[prefix, ...issue.path.map(String)].filter(Boolean).join('.') || '(root)'}: ${issue.message}`)
    .join('; ');
}
