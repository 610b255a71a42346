import { z } from 'zod';
import type { KernelEvent, Message } from 'dualloop';

/** The schema most tests type their task with. */
export const Report = z.object({ title: z.string(), count: z.number().int() });

/** A task whose final answer must match `Report`. */
export const reportTask = (overrides: Record<string, unknown> = {}) => ({ id: 'report', description: 'Write the report.', output: Report, ...overrides });

export const VALID = '{"title": "Q3", "count": 3}';
/** `title` is a number: one issue, at path `title`. */
export const INVALID = '{"title": 3, "count": 3}';

/** The `output_invalid` events of a run. */
export function invalidEvents(events: readonly KernelEvent[]): Extract<KernelEvent, { type: 'output_invalid' }>[] {
  return events.filter((event): event is Extract<KernelEvent, { type: 'output_invalid' }> => event.type === 'output_invalid');
}

/** The last message a call saw, when it is a repair request. */
export function repairOf(messages: readonly Message[]): string | undefined {
  const last = messages.at(-1);
  return last?.role === 'user' && last.source === 'output_repair' ? last.content : undefined;
}
