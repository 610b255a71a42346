import { z } from 'zod';
import { lazySchema, type SchemaOf } from './lazy-schema.js';

/**
 * Size and shape limits on what models and tools hand the kernel (ADR 0113, ADR 0104). Every one
 * has a default; the `limits` option of createKernel/runWorkflow (and a manifest's `limits:`)
 * changes them.
 */
export const LimitsSchema = lazySchema(() => z.strictObject({
  toolResultChars: z.number().int().min(64).optional().describe('Most characters of a tool result (its JSON, or the string itself) kept; the rest is cut with a marker (default 262144)'),
  toolResultDepth: z.number().int().min(1).max(1_000).optional().describe('Deepest nesting of a tool result kept; deeper values become a marker (default 64)'),
  toolArgumentsDepth: z.number().int().min(1).max(1_000).optional().describe('Deepest nesting of tool-call arguments (and of a typed task\'s JSON answer) accepted; deeper arguments are an error tool result, a deeper answer an output issue (default 64)'),
  toolArgumentsChars: z
    .number()
    .int()
    .min(64)
    .optional()
    .describe('Most characters of tool-call arguments (their JSON) accepted; longer arguments are an error tool result, the tool does not run, and they are kept cut with a marker (default 262144)'),
  modelTextChars: z.number().int().min(64).optional().describe("Most characters of a model's text kept per call; the rest is cut with a marker and a warning (default 1048576)"),
}));

export type LimitsOption = z.input<SchemaOf<typeof LimitsSchema>>;

export interface Limits {
  readonly toolResultChars: number;
  readonly toolResultDepth: number;
  readonly toolArgumentsDepth: number;
  readonly toolArgumentsChars: number;
  readonly modelTextChars: number;
}

export const DEFAULT_LIMITS: Limits = Object.freeze({
  toolResultChars: 262_144,
  toolResultDepth: 64,
  toolArgumentsDepth: 64,
  toolArgumentsChars: 262_144,
  modelTextChars: 1_048_576,
});

export function resolveLimits(option: LimitsOption | undefined): Limits {
  return {
    toolResultChars: option?.toolResultChars ?? DEFAULT_LIMITS.toolResultChars,
    toolResultDepth: option?.toolResultDepth ?? DEFAULT_LIMITS.toolResultDepth,
    toolArgumentsDepth: option?.toolArgumentsDepth ?? DEFAULT_LIMITS.toolArgumentsDepth,
    toolArgumentsChars: option?.toolArgumentsChars ?? DEFAULT_LIMITS.toolArgumentsChars,
    modelTextChars: option?.modelTextChars ?? DEFAULT_LIMITS.modelTextChars,
  };
}
