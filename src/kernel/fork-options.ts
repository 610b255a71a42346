import { z } from 'zod';
import { BoundsOverrideSchema } from '../contracts/bounds.js';
import type { ForkOptions } from '../contracts/fork.js';
import { MessageSchema } from '../contracts/message-schema.js';
import { ConfigError } from '../errors.js';
import { zodIssues } from '../contracts/zod-issues.js';
import { lazySchema } from '../contracts/lazy-schema.js';

const nonEmpty = lazySchema(() => z.string().min(1, 'must be a non-empty string'));

// Built once, at the first fork: `fork` is rare, and a schema costs more to build than to run.
const ForkOptionsSchema = lazySchema(() => z.strictObject({
  at: z.strictObject({
    task: z.union([z.number().int().min(1, 'must be a task number, counted from 1'), z.string().min(1, 'must be a task number (from 1) or a task id')], { error: 'must be a task number (an integer from 1) or a task id' }),
    turn: z.number({ error: 'must be a turn number (an integer from 1)' }).int('must be a turn number (an integer from 1)').min(1, 'must be a turn number, counted from 1').optional(),
  }),
  edit: z
    .strictObject({
      messages: z.array(MessageSchema()).min(1, 'must hold at least one message').optional(),
      message: nonEmpty().optional(),
      pendingMessages: z.strictObject({ steering: z.array(nonEmpty()).optional(), followUp: z.array(nonEmpty()).optional() }).optional(),
      bounds: BoundsOverrideSchema().optional(),
    })
    .optional(),
  runId: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/, 'must be 1–128 letters, digits, ".", "_" or "-"').optional(),
  signal: z.instanceof(AbortSignal).optional(),
  acceptChange: z.boolean().optional(),
}));

/** Validates `kernel.fork`'s options before any side effect: one ConfigError naming every bad field. */
export function parseForkOptions(options: unknown): ForkOptions {
  const parsed = ForkOptionsSchema().safeParse(options);
  if (!parsed.success) throw new ConfigError({ message: 'Invalid fork options', issues: zodIssues(parsed.error) });
  const value = parsed.data as ForkOptions;
  if (value.edit?.messages !== undefined && (value.at.turn ?? 1) === 1) {
    throw new ConfigError({
      message: 'Invalid fork options',
      issues: [{ path: 'edit.messages', message: 'replaces a running task\'s transcript: fork at a turn point { task, turn } with turn ≥ 2 (use edit.message to add a message at a task start)' }],
    });
  }
  return value;
}
