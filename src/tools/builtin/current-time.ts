import { z } from 'zod';
import type { Tool } from '../../contracts/tool.js';
import { defineTool } from '../define-tool.js';

/**
 * `current_time`: the current date and time, in UTC and optionally in an IANA time zone. Its
 * result is recorded like any tool result, so a resumed run replays the time it saw first.
 */
export function currentTimeTool(options: { readonly now?: () => number } = {}): Tool {
  const now = options.now ?? Date.now;
  return defineTool({
    name: 'current_time',
    description: 'Returns the current date and time (ISO 8601 UTC, and local time in the given IANA time zone).',
    parameters: z.object({ timeZone: z.string().min(1).optional().describe('An IANA time zone such as "Europe/Paris"; default UTC') }),
    executionMode: 'parallel',
    execute: ({ timeZone }) => {
      const epochMs = now();
      const zone = timeZone ?? 'UTC';
      let local: string;
      try {
        local = new Intl.DateTimeFormat('en-CA', { timeZone: zone, dateStyle: 'short', timeStyle: 'medium', hourCycle: 'h23' }).format(epochMs);
      } catch {
        throw new Error(`unknown time zone "${zone}"`);
      }
      return { iso: new Date(epochMs).toISOString(), epochMs, timeZone: zone, local };
    },
  });
}
