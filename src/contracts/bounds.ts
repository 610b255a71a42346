import { z } from 'zod';

const positiveInt = z.number().int().positive();
const positiveNumber = z.number().positive();

/** Bounds of one task's turn loop. */
export const InnerBoundsSchema = z.strictObject({
  maxTurns: positiveInt,
  maxToolCalls: positiveInt,
  maxRuntimeMs: positiveInt,
  maxTokens: positiveInt.optional(),
  maxCostUsd: positiveNumber.optional(),
});
export type InnerBounds = z.infer<typeof InnerBoundsSchema>;

/** Bounds of the whole workflow run. */
export const OuterBoundsSchema = z.strictObject({
  maxWorkflowSteps: positiveInt,
  maxSessionRuntimeMs: positiveInt,
  maxTokens: positiveInt.optional(),
  maxCostUsd: positiveNumber.optional(),
  /** Plan strategies: revisions allowed after a failed step. */
  maxReplans: z.number().int().nonnegative(),
});
export type OuterBounds = z.infer<typeof OuterBoundsSchema>;

export interface Bounds {
  readonly inner: InnerBounds;
  readonly outer: OuterBounds;
}

/** Every field optional, for options, manifests and per-task overrides. */
export const BoundsOverrideSchema = z.strictObject({
  inner: InnerBoundsSchema.partial().optional(),
  outer: OuterBoundsSchema.partial().optional(),
});
export type BoundsOverride = z.infer<typeof BoundsOverrideSchema>;

/**
 * Defaults chosen so that an unconfigured run always ends within minutes, yet a real
 * multi-step task has room to finish. ADR/0003-default-bounds.md gives the reasoning.
 */
export const DEFAULT_BOUNDS: Bounds = Object.freeze({
  inner: Object.freeze({ maxTurns: 25, maxToolCalls: 50, maxRuntimeMs: 600_000 }),
  outer: Object.freeze({ maxWorkflowSteps: 50, maxSessionRuntimeMs: 3_600_000, maxReplans: 3 }),
});

export function resolveBounds(base: Bounds, override: BoundsOverride | undefined): Bounds {
  if (override === undefined) return base;
  return {
    inner: { ...base.inner, ...stripUndefined(override.inner) },
    outer: { ...base.outer, ...stripUndefined(override.outer) },
  };
}

function stripUndefined<T extends object>(value: T | undefined): Partial<T> {
  if (value === undefined) return {};
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as Partial<T>;
}
