import { z } from 'zod';
import { InnerBoundsSchema, type Bounds } from '../contracts/bounds.js';
import { defaultTaskId } from '../contracts/task-id.js';
import type { TaskSpec } from '../contracts/turn-protocol.js';
import { ConfigError, type ConfigIssue } from '../errors.js';
import { graphIssues } from '../graph/task-graph.js';
import { outputJsonSchema } from '../graph/output-schema.js';
import { zodIssues } from '../contracts/zod-issues.js';
import { lazySchema, type SchemaOf } from '../contracts/lazy-schema.js';

/** A task as the caller gives it: a description, or an object with an optional id and per-task bounds. */
export const TaskInputSchema = lazySchema(() => z.union([
  z.string().trim().min(1, 'must be a non-empty description'),
  z.strictObject({
    id: z.string().trim().min(1).optional(),
    description: z.string().trim().min(1, 'must be a non-empty description'),
    bounds: InnerBoundsSchema().partial().optional(),
    // Checked by outputJsonSchema (a zod schema or a JSON Schema object).
    output: z.custom<unknown>((value) => value !== undefined, 'must be a zod schema or a JSON Schema object').optional(),
    dependsOn: z.array(z.string().trim().min(1)).optional(),
    forEach: z.string().trim().min(1).optional(),
    forEachFailure: z.enum(['fail', 'collect']).optional(),
    // Names of the kernel's guardrails this task runs (docs/guardrails.md); absent: all of them.
    guardrails: z.array(z.string().trim().min(1)).optional(),
  }),
]));

/**
 * A task as the caller gives it: a description, or an object with an optional id, per-task
 * bounds, a typed `output` (a zod schema or a JSON Schema), `dependsOn`, `forEach` and
 * `forEachFailure` (docs/workflows.md). `dependsOn` may be a readonly array, so that a list
 * written `as const` (its outputs typed, docs/api.md "Typed outputs") is accepted.
 */
export type TaskInput =
  | string
  | (Omit<Exclude<z.input<SchemaOf<typeof TaskInputSchema>>, string>, 'dependsOn' | 'guardrails'> & { readonly dependsOn?: readonly string[]; readonly guardrails?: readonly string[] });

// Built once: a zod schema costs more to build than to run, and every start() validates its tasks.
const TaskListSchema = lazySchema(() => z.array(TaskInputSchema()).min(1, 'must hold at least one task'));

/**
 * Validates tasks and gives each an id (`task-1`, …) and its resolved inner bounds. With
 * `guardrails` (the kernel's guardrail names), a task naming another one is refused.
 */
export function normalizeTasks(tasks: readonly TaskInput[] | undefined, bounds: Bounds, guardrails?: ReadonlySet<string>): TaskSpec[] {
  // The common case, descriptions only, needs no schema: what it would check is checked here (issue 16: per-run setup).
  if (Array.isArray(tasks) && tasks.length > 0 && tasks.every((task) => typeof task === 'string' && task.trim() !== '' && !task.includes('{{'))) {
    return tasks.map((task, index) => ({ id: defaultTaskId(index), index, description: (task as string).trim(), bounds: bounds.inner }));
  }
  const parsed = TaskListSchema().safeParse(tasks);
  if (!parsed.success) throw new ConfigError({ message: 'Invalid tasks', issues: zodIssues(parsed.error, 'tasks') });
  const outputIssues: ConfigIssue[] = [];
  const specs = parsed.data.map((task, index): TaskSpec => {
    if (typeof task === 'string') return { id: defaultTaskId(index), index, description: task, bounds: bounds.inner };
    const own = Object.fromEntries(Object.entries(task.bounds ?? {}).filter(([, value]) => value !== undefined));
    const output = task.output === undefined ? undefined : outputJsonSchema(task.output);
    if (output !== undefined && 'problem' in output) outputIssues.push({ path: `tasks.${index}.output`, message: output.problem });
    return {
      id: task.id ?? defaultTaskId(index),
      index,
      description: task.description,
      bounds: { ...bounds.inner, ...own },
      ...(output !== undefined && 'schema' in output ? { output: output.schema } : {}),
      ...(task.dependsOn === undefined ? {} : { dependsOn: task.dependsOn }),
      ...(task.forEach === undefined ? {} : { forEach: task.forEach }),
      ...(task.forEachFailure === undefined ? {} : { forEachFailure: task.forEachFailure }),
      ...(task.guardrails === undefined ? {} : { guardrails: task.guardrails }),
    };
  });
  for (const spec of specs) {
    for (const [position, name] of (spec.guardrails ?? []).entries()) {
      if (guardrails !== undefined && !guardrails.has(name)) {
        const known = guardrails.size === 0 ? 'the kernel has no guardrails' : `known: ${[...guardrails].join(', ')}`;
        outputIssues.push({ path: `tasks.${spec.index}.guardrails.${position}`, message: `unknown guardrail "${name}" (${known})` });
      }
    }
  }
  if (outputIssues.length > 0) throw new ConfigError({ message: 'Invalid tasks', issues: outputIssues });
  const seen = new Map<string, number>();
  const duplicates = specs.flatMap((spec) => {
    const first = seen.get(spec.id);
    seen.set(spec.id, spec.index);
    return first === undefined ? [] : [{ path: `tasks.${spec.index}.id`, message: `duplicate task id "${spec.id}" (also tasks.${first})` }];
  });
  if (duplicates.length > 0) throw new ConfigError({ message: 'Invalid tasks', issues: duplicates });
  const graph = graphIssues(specs);
  if (graph.length > 0) throw new ConfigError({ message: 'Invalid tasks', issues: graph });
  return specs;
}
