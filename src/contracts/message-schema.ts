import { z } from 'zod';
import { lazySchema } from './lazy-schema.js';

/** A transcript message as read back from outside (a checkpoint, a caller's engine state): parsed, never trusted. */
export const ToolCallSchema = lazySchema(() => z.object({ id: z.string(), name: z.string(), args: z.unknown(), argumentsError: z.string().optional() }));

export const MessageSchema = lazySchema(() => z.discriminatedUnion('role', [
  z.object({ role: z.literal('system'), content: z.string() }),
  z.object({ role: z.literal('user'), content: z.string(), source: z.enum(['task', 'steering', 'follow_up', 'wrap_up', 'ephemeral', 'output_repair']).optional() }),
  z.object({ role: z.literal('assistant'), content: z.string(), toolCalls: z.array(ToolCallSchema()).optional() }),
  z.object({ role: z.literal('tool'), toolCallId: z.string(), name: z.string(), content: z.string(), isError: z.boolean() }),
]));
