/**
 * Checkpoint format versions 2 (a list run) and 3 (a graph run: `branches`, ADR/0420): the schema of
 * one history entry as read back from a store (ADR/0120).
 */
import { z } from 'zod';
import { lazySchema, type SchemaOf } from '../contracts/lazy-schema.js';
import { MessageSchema } from '../contracts/message-schema.js';
import { ActiveTaskSchema, MetricsSchema, QueuesSchema, TaskCountersShape, TaskSpecSchema, TurnResultSchema } from './progress-schema.js';

const count = lazySchema(() => z.number().int().nonnegative());

const TranscriptPieceSchema = lazySchema(() => z.union([z.tuple([count(), count()]), MessageSchema()]));

const ActiveChangeSchema = lazySchema(() => z.object({
  task: TaskSpecSchema().optional(),
  messages: z.array(TranscriptPieceSchema()),
  turns: z.object({ keep: count(), add: z.array(TurnResultSchema()) }),
  ...TaskCountersShape(),
  queues: QueuesSchema().optional(),
  delivered: z.array(z.number().int()),
  modelCallIndex: count(),
}));

const ChangeSchema = lazySchema(() => z.object({
  modelCallIndex: count(),
  elapsedMs: z.number().nonnegative(),
  queues: QueuesSchema(),
  metrics: MetricsSchema().optional(),
  strategy: z.unknown().optional(),
  active: ActiveChangeSchema().nullable().optional(),
  branches: z.record(z.string(), ActiveChangeSchema().nullable()).optional(),
}));

const SnapshotSchema = lazySchema(() => z.object({
  metrics: MetricsSchema(),
  queues: QueuesSchema(),
  modelCallIndex: count(),
  elapsedMs: z.number().nonnegative(),
  strategy: z.unknown().optional(),
  active: ActiveTaskSchema().optional(),
  branches: z.array(ActiveTaskSchema()).optional(),
}));

/** An entry as a store keeps it: its committed results may be left out (the store keeps them by position). */
export const EntryV2Schema = lazySchema(() => z.object({
  version: z.union([z.literal(2), z.literal(3)]),
  runId: z.string().min(1),
  sequence: z.number().int().positive(),
  kind: z.enum(['turn', 'task', 'select']),
  savedAt: z.number(),
  eventSeq: count(),
  position: z.object({ taskId: z.string().optional(), taskIndex: count().optional(), turn: z.number().int().positive().optional() }),
  tasksDone: count(),
  change: ChangeSchema(),
  snapshot: SnapshotSchema().optional(),
}));

export type StoredEntry = z.infer<SchemaOf<typeof EntryV2Schema>>;
