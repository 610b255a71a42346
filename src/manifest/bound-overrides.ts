import type { BoundsOverride } from '../contracts/bounds.js';
import type { TaskInput } from '../kernel/tasks.js';

/** Bounds given on the command line (`--max-turns` …); each one wins over the manifest, per-task bounds included. */
export interface BoundOverrides {
  readonly maxTurns?: number;
  readonly maxToolCalls?: number;
  readonly maxRuntimeMs?: number;
  readonly maxWorkflowSteps?: number;
  readonly maxSessionRuntimeMs?: number;
  /** The workflow's token budget (`bounds.outer.maxTokens`). */
  readonly maxTokens?: number;
  /** The workflow's cost budget in USD (`bounds.outer.maxCostUsd`). */
  readonly maxCostUsd?: number;
  /** Most tasks of a graph running at once (`bounds.outer.maxParallelTasks`). */
  readonly maxParallelTasks?: number;
}

/** The per-task bounds the command line overrides (`--max-turns`, `--max-tool-calls`, `--max-runtime`). */
export const INNER_OVERRIDES = ['maxTurns', 'maxToolCalls', 'maxRuntimeMs'] as const;
const OUTER = ['maxWorkflowSteps', 'maxSessionRuntimeMs', 'maxTokens', 'maxCostUsd', 'maxParallelTasks'] as const;

/** The bound overrides among a command's flags. */
export function boundOverridesOf(flags: BoundOverrides): BoundOverrides {
  return { ...pick(flags, INNER_OVERRIDES), ...pick(flags, OUTER) };
}

/** The manifest's bounds and tasks with the command-line overrides applied. */
export function applyBoundOverrides(
  bounds: BoundsOverride | undefined,
  tasks: readonly TaskInput[],
  overrides: BoundOverrides,
): { readonly bounds: BoundsOverride; readonly tasks: readonly TaskInput[] } {
  const inner = pick(overrides, INNER_OVERRIDES);
  const outer = pick(overrides, OUTER);
  const innerKeys = Object.keys(inner);
  const merged: BoundsOverride = {
    ...(bounds?.inner === undefined && innerKeys.length === 0 ? {} : { inner: { ...bounds?.inner, ...inner } }),
    ...(bounds?.outer === undefined && Object.keys(outer).length === 0 ? {} : { outer: { ...bounds?.outer, ...outer } }),
  };
  if (innerKeys.length === 0) return { bounds: merged, tasks };
  const withoutOverridden = tasks.map((task) => {
    if (typeof task === 'string' || task.bounds === undefined) return task;
    const own = Object.fromEntries(Object.entries(task.bounds).filter(([key]) => !innerKeys.includes(key)));
    return { ...task, bounds: own };
  });
  return { bounds: merged, tasks: withoutOverridden };
}

function pick<K extends keyof BoundOverrides>(overrides: BoundOverrides, keys: readonly K[]): Partial<Record<K, number>> {
  const picked: Partial<Record<K, number>> = {};
  for (const key of keys) {
    const value = overrides[key];
    if (value !== undefined) picked[key] = value;
  }
  return picked;
}
