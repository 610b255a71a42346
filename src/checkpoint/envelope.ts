/**
 * The checkpoint envelope as read back from a store: parsed with zod, never trusted.
 * Version 1 is current; a newer version is refused (written by a newer dualloop), an older one
 * would be migrated here. Fixtures of every version live in test/checkpoint/fixtures/.
 */
import { z } from 'zod';
import { InnerBoundsSchema } from '../contracts/bounds.js';
import { MessageSchema, ToolCallSchema } from '../contracts/message-schema.js';
import { CHECKPOINT_VERSION, type CheckpointEnvelope } from '../contracts/store.js';
import { StopReason } from '../contracts/stop.js';

const UsageSchema = z.object({ inputTokens: z.number().nonnegative(), outputTokens: z.number().nonnegative() });


export const StopConditionSchema = z.object({
  reason: StopReason,
  detail: z.string(),
  bound: z.object({ name: z.string(), limit: z.number(), value: z.number() }).optional(),
  at: z.number(),
});

const TurnResultSchema = z.object({
  turn: z.number().int().positive(),
  assistantText: z.string(),
  toolCalls: z.array(z.object({ id: z.string(), name: z.string(), args: z.unknown(), result: z.unknown(), isError: z.boolean() })),
  stop: StopConditionSchema.optional(),
  usage: UsageSchema,
  costUsd: z.number().nonnegative(),
  runtimeMs: z.number().nonnegative(),
});

export const TaskResultSchema = z.object({
  taskId: z.string(),
  index: z.number().int().nonnegative(),
  description: z.string(),
  stop: StopConditionSchema,
  turns: z.array(TurnResultSchema),
  turnCount: z.number().int().nonnegative(),
  toolCalls: z.number().int().nonnegative(),
  output: z.string(),
  usage: UsageSchema,
  costUsd: z.number().nonnegative(),
  runtimeMs: z.number().nonnegative(),
  wrapUp: TurnResultSchema.optional(),
});

export const MetricsSchema = z.object({
  workflowSteps: z.number().int().nonnegative(),
  turns: z.number().int().nonnegative(),
  toolCalls: z.number().int().nonnegative(),
  inputTokens: z.number().nonnegative(),
  outputTokens: z.number().nonnegative(),
  costUsd: z.number().nonnegative(),
  runtimeMs: z.number().nonnegative(),
});

const QueuedSchema = z.object({ id: z.number().int(), content: z.string() });
const QueuesSchema = z.object({ steering: z.array(QueuedSchema), followUp: z.array(QueuedSchema) });

export const TaskSpecSchema = z.object({
  id: z.string().min(1),
  index: z.number().int().nonnegative(),
  description: z.string(),
  bounds: InnerBoundsSchema,
});

const ModelResponseSchema = z.object({
  type: z.literal('response'),
  text: z.string(),
  toolCalls: z.array(ToolCallSchema),
  usage: UsageSchema,
  costUsd: z.number().nonnegative(),
  finishReason: z.enum(['stop', 'tool_calls', 'length', 'content_filter']),
  warnings: z.array(z.string()).optional(),
});

const ResumePointSchema = z.object({
  progress: z.object({
    messages: z.array(MessageSchema),
    turns: z.array(TurnResultSchema),
    toolCalls: z.number().int().nonnegative(),
    usage: UsageSchema,
    costUsd: z.number().nonnegative(),
    elapsedMs: z.number().nonnegative(),
    repeat: z.object({ key: z.string(), count: z.number().int().nonnegative() }),
    followUpDue: z.boolean(),
    pending: z.object({ turn: z.number().int().positive(), response: ModelResponseSchema }).optional(),
  }),
  queues: QueuesSchema,
  delivered: z.array(z.number().int()),
  modelCallIndex: z.number().int().nonnegative(),
});

const ProgressSchema = z.object({
  results: z.array(TaskResultSchema),
  metrics: MetricsSchema,
  queues: QueuesSchema,
  modelCallIndex: z.number().int().nonnegative(),
  elapsedMs: z.number().nonnegative(),
  active: z.object({ task: TaskSpecSchema, point: ResumePointSchema }).optional(),
  strategy: z.unknown().optional(),
});

const EnvelopeV1Schema = z.object({
  version: z.literal(1),
  runId: z.string().min(1),
  kind: z.enum(['task', 'turn']),
  sequence: z.number().int().positive(),
  savedAt: z.number(),
  eventSeq: z.number().int().nonnegative(),
  progress: ProgressSchema,
});

export type EnvelopeProblem = { readonly code: 'checkpoint_future_version' | 'checkpoint_corrupt'; readonly message: string };

/** Parses a stored checkpoint; the problem names what is wrong, for a RunError. */
export function parseEnvelope(raw: unknown, runId: string): { ok: true; envelope: CheckpointEnvelope } | { ok: false; problem: EnvelopeProblem } {
  const version = typeof raw === 'object' && raw !== null ? (raw as { version?: unknown }).version : undefined;
  if (typeof version === 'number' && version > CHECKPOINT_VERSION) {
    return {
      ok: false,
      problem: {
        code: 'checkpoint_future_version',
        message: `run ${runId}: checkpoint version ${version} was written by a newer dualloop (this one reads up to ${CHECKPOINT_VERSION}); upgrade dualloop to resume it`,
      },
    };
  }
  const parsed = EnvelopeV1Schema.safeParse(raw);
  if (!parsed.success) {
    const issues = parsed.error.issues.slice(0, 5).map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`).join('; ');
    return { ok: false, problem: { code: 'checkpoint_corrupt', message: `run ${runId}: checkpoint is corrupt (${issues}); the run was not restarted` } };
  }
  if (parsed.data.runId !== runId) {
    return { ok: false, problem: { code: 'checkpoint_corrupt', message: `run ${runId}: checkpoint belongs to run ${parsed.data.runId}` } };
  }
  return { ok: true, envelope: parsed.data as CheckpointEnvelope };
}
