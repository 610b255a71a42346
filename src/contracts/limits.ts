import { z } from 'zod';

/**
 * Size and shape limits on what models and tools hand the kernel (ADR 0113). Every one has a
 * default; the `limits` option of createKernel/runWorkflow changes them.
 */
export const LimitsSchema = z.strictObject({
  /** Most characters of a tool result (its JSON, or the string itself) kept; the rest is cut with a marker. */
  toolResultChars: z.number().int().min(64).optional(),
  /** Deepest nesting of a tool result kept; deeper values become a marker. */
  toolResultDepth: z.number().int().min(1).max(1_000).optional(),
  /** Deepest nesting of tool-call arguments accepted; deeper arguments are an error tool result. */
  toolArgumentsDepth: z.number().int().min(1).max(1_000).optional(),
});

export type LimitsOption = z.input<typeof LimitsSchema>;

export interface Limits {
  readonly toolResultChars: number;
  readonly toolResultDepth: number;
  readonly toolArgumentsDepth: number;
}

export const DEFAULT_LIMITS: Limits = Object.freeze({ toolResultChars: 262_144, toolResultDepth: 64, toolArgumentsDepth: 64 });

export function resolveLimits(option: LimitsOption | undefined): Limits {
  return {
    toolResultChars: option?.toolResultChars ?? DEFAULT_LIMITS.toolResultChars,
    toolResultDepth: option?.toolResultDepth ?? DEFAULT_LIMITS.toolResultDepth,
    toolArgumentsDepth: option?.toolArgumentsDepth ?? DEFAULT_LIMITS.toolArgumentsDepth,
  };
}
