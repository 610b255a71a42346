import { z } from 'zod';
import { lazySchema, type SchemaOf } from './lazy-schema.js';

const positiveInt = lazySchema(() => z.number().int().positive());
const positiveNumber = lazySchema(() => z.number().positive());

/** Bounds of one task's turn loop. */
export const InnerBoundsSchema = lazySchema(() => z.strictObject({
  maxTurns: positiveInt(),
  maxToolCalls: positiveInt(),
  maxRuntimeMs: positiveInt(),
  maxTokens: positiveInt().optional(),
  maxCostUsd: positiveNumber().optional(),
  /**
   * Typed outputs: answers that did not match the task's `output` schema sent back to the model
   * before the task stops `invalid_output`. Optional in stored task specs (written before it
   * existed); DEFAULT_BOUNDS sets it.
   */
  maxOutputRepairs: z.number().int().nonnegative().optional(),
  /** Fan-out (`forEach`): most items one task runs; more stop it `invalid_output`. Optional as above. */
  maxItems: positiveInt().optional(),
}));
export type InnerBounds = z.infer<SchemaOf<typeof InnerBoundsSchema>>;

/** Bounds of the whole workflow run. */
export const OuterBoundsSchema = lazySchema(() => z.strictObject({
  maxWorkflowSteps: positiveInt(),
  maxSessionRuntimeMs: positiveInt(),
  maxTokens: positiveInt().optional(),
  maxCostUsd: positiveNumber().optional(),
  /** Plan strategies: revisions allowed after a failed step. */
  maxReplans: z.number().int().nonnegative(),
  /** Graph workflows: most tasks (and fan-out items) running at once. Optional as the inner additions; DEFAULT_BOUNDS sets it. */
  maxParallelTasks: positiveInt().optional(),
  /** Delegation (`agentTool`): runs below the root run; a deeper call is an error result `delegation_too_deep`. Optional as above. */
  maxDelegationDepth: z.number().int().nonnegative().optional(),
}));
export type OuterBounds = z.infer<SchemaOf<typeof OuterBoundsSchema>>;

export interface Bounds {
  readonly inner: InnerBounds;
  readonly outer: OuterBounds;
}

/** Every field optional, for options, manifests and per-task overrides. */
export const BoundsOverrideSchema = lazySchema(() => z.strictObject({
  inner: InnerBoundsSchema().partial().optional(),
  outer: OuterBoundsSchema().partial().optional(),
}));
export type BoundsOverride = z.infer<SchemaOf<typeof BoundsOverrideSchema>>;

/**
 * Defaults chosen so that an unconfigured run always ends within minutes, yet a real
 * multi-step task has room to finish. ADR/0003-default-bounds.md gives the reasoning.
 */
export const DEFAULT_BOUNDS: Bounds = Object.freeze({
  inner: Object.freeze({ maxTurns: 25, maxToolCalls: 50, maxRuntimeMs: 600_000, maxOutputRepairs: 2, maxItems: 100 }),
  outer: Object.freeze({ maxWorkflowSteps: 50, maxSessionRuntimeMs: 3_600_000, maxReplans: 3, maxParallelTasks: 1, maxDelegationDepth: 3 }),
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

/** `maxOutputRepairs` of a task spec, which specs stored before it existed lack. */
export function outputRepairsOf(bounds: InnerBounds): number {
  return bounds.maxOutputRepairs ?? DEFAULT_BOUNDS.inner.maxOutputRepairs!;
}

/** `maxItems` of a task spec, which specs stored before it existed lack. */
export function maxItemsOf(bounds: InnerBounds): number {
  return bounds.maxItems ?? DEFAULT_BOUNDS.inner.maxItems!;
}

/** `maxParallelTasks` of outer bounds, which bounds written before it existed lack. */
export function parallelTasksOf(bounds: OuterBounds): number {
  return bounds.maxParallelTasks ?? DEFAULT_BOUNDS.outer.maxParallelTasks!;
}

/** `maxDelegationDepth` of outer bounds, which bounds written before it existed lack. */
export function delegationDepthOf(bounds: OuterBounds): number {
  return bounds.maxDelegationDepth ?? DEFAULT_BOUNDS.outer.maxDelegationDepth!;
}
