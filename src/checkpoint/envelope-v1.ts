/**
 * Checkpoint format version 1 (dualloop 0.1): one envelope holding the whole workflow progress,
 * finished tasks included. No longer written; still read, as the snapshot a history starts from
 * (a migrated SQLite file keeps its version 1 checkpoints as they were; ADR/0120).
 */
import { z } from 'zod';
import { lazySchema } from '../contracts/lazy-schema.js';
import { ActiveTaskSchema, MetricsSchema, QueuesSchema, TaskResultSchema } from './progress-schema.js';

export const EnvelopeV1Schema = lazySchema(() => z.object({
  version: z.literal(1),
  runId: z.string().min(1),
  kind: z.enum(['task', 'turn']),
  sequence: z.number().int().positive(),
  savedAt: z.number(),
  eventSeq: z.number().int().nonnegative(),
  progress: z.object({
    results: z.array(TaskResultSchema()),
    metrics: MetricsSchema(),
    queues: QueuesSchema(),
    modelCallIndex: z.number().int().nonnegative(),
    elapsedMs: z.number().nonnegative(),
    active: ActiveTaskSchema().optional(),
    strategy: z.unknown().optional(),
  }),
}));
