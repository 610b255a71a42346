/**
 * The shape of a workflow's tasks (docs/workflows.md). A list where no task has `dependsOn` or
 * `forEach` is a *list*: each task waits for the one before it, as always. Otherwise it is a
 * *graph*: a task waits for its `dependsOn` (and its `forEach` source); tasks without any start
 * at once, up to `maxParallelTasks`. Checked before a run starts: unknown ids, cycles (named
 * `a → b → a`), placeholders that name a task the task does not wait for (directly or not) or a
 * path its dependency's output schema does not have, and `forEach` sources that are no array.
 * Pure.
 */
import type { ConfigIssue } from '../errors.js';
import type { TaskSpec } from '../contracts/turn-protocol.js';
import { arrayAt, schemaAt } from './json-schema-path.js';
import { parseOutputReference, placeholdersOf } from './placeholders.js';

/** Whether the tasks form a graph (some task has `dependsOn` or `forEach`) rather than a list. */
export function isGraph(tasks: readonly TaskSpec[]): boolean {
  return tasks.some((task) => task.dependsOn !== undefined || task.forEach !== undefined);
}

/** The ids a task waits for: the one before it in a list; its `dependsOn` and `forEach` source in a graph. */
export function dependenciesOf(task: TaskSpec, tasks: readonly TaskSpec[], graph: boolean = isGraph(tasks)): readonly string[] {
  if (!graph) return task.index === 0 ? [] : [tasks[task.index - 1]!.id];
  const source = task.forEach === undefined ? undefined : parseOutputReference(task.forEach)?.taskId;
  const own = task.dependsOn ?? [];
  return source === undefined || own.includes(source) ? own : [...own, source];
}

/** Every problem of the tasks' graph, each naming the task (`tasks.<i>.<field>`). */
export function graphIssues(tasks: readonly TaskSpec[]): ConfigIssue[] {
  const graph = isGraph(tasks);
  const byId = new Map(tasks.map((task) => [task.id, task]));
  const issues: ConfigIssue[] = [];
  for (const task of tasks) {
    for (const [position, id] of (task.dependsOn ?? []).entries()) {
      if (!byId.has(id)) issues.push({ path: `tasks.${task.index}.dependsOn.${position}`, message: `task "${task.id}" depends on "${id}", which is not a task of this workflow (${known(tasks)})` });
      else if (id === task.id) issues.push({ path: `tasks.${task.index}.dependsOn.${position}`, message: `task "${task.id}" depends on itself` });
    }
    issues.push(...forEachIssues(task, byId));
  }
  const cycle = findCycle(tasks, graph);
  if (cycle !== undefined) {
    const first = byId.get(cycle[0]!)!;
    issues.push({ path: `tasks.${first.index}.dependsOn`, message: `the tasks depend on each other in a cycle: ${cycle.join(' → ')}` });
  }
  // Unknown ids and cycles do not hide placeholder problems; a task's {{item}} needs its own forEach sound.
  const badForEach = new Set(issues.filter((issue) => issue.path.endsWith('.forEach')).map((issue) => issue.path));
  for (const task of tasks) if (!badForEach.has(`tasks.${task.index}.forEach`)) issues.push(...placeholderIssues(task, tasks, byId, graph));
  return issues;
}

function known(tasks: readonly TaskSpec[]): string {
  return `its tasks are ${tasks.map((task) => `"${task.id}"`).join(', ')}`;
}

function forEachIssues(task: TaskSpec, byId: ReadonlyMap<string, TaskSpec>): ConfigIssue[] {
  if (task.forEach === undefined) return [];
  const path = `tasks.${task.index}.forEach`;
  const reference = parseOutputReference(task.forEach);
  if (reference === undefined) return [{ path, message: `forEach must be "<taskId>.output" or "<taskId>.output.<path>", got "${task.forEach}"` }];
  const source = byId.get(reference.taskId);
  if (source === undefined) return [{ path, message: `forEach names "${reference.taskId}", which is not a task of this workflow` }];
  if (source.id === task.id) return [{ path, message: `task "${task.id}" cannot fan out over its own output` }];
  if (source.output === undefined) return [{ path, message: `forEach needs a typed output: task "${source.id}" has no output schema, so "${task.forEach}" is not known to be an array` }];
  if (arrayAt(source.output, reference.path) === undefined) return [{ path, message: `"${task.forEach}" is not an array in the output schema of task "${source.id}"` }];
  return [];
}

/** A cycle as ids from its first task back to it, each depending on the next, or `undefined` (depth-first, in task order). */
function findCycle(tasks: readonly TaskSpec[], graph: boolean): readonly string[] | undefined {
  const byId = new Map(tasks.map((task) => [task.id, task]));
  const state = new Map<string, 'visiting' | 'done'>();
  const trail: string[] = [];
  const visit = (id: string): readonly string[] | undefined => {
    const mark = state.get(id);
    if (mark === 'done') return undefined;
    if (mark === 'visiting') return [...trail.slice(trail.indexOf(id)), id];
    const task = byId.get(id);
    if (task === undefined) return undefined;
    state.set(id, 'visiting');
    trail.push(id);
    for (const dependency of dependenciesOf(task, tasks, graph)) {
      // A task that depends on itself is reported as such, not as a cycle.
      if (dependency === id) continue;
      const cycle = visit(dependency);
      if (cycle !== undefined) return cycle;
    }
    trail.pop();
    state.set(id, 'done');
    return undefined;
  };
  for (const task of tasks) {
    const cycle = visit(task.id);
    if (cycle !== undefined) return cycle;
  }
  return undefined;
}

/** The ids a task waits for, directly or through others. */
export function ancestorsOf(task: TaskSpec, tasks: readonly TaskSpec[], graph: boolean = isGraph(tasks)): ReadonlySet<string> {
  const byId = new Map(tasks.map((spec) => [spec.id, spec]));
  const seen = new Set<string>();
  const stack = [...dependenciesOf(task, tasks, graph)];
  while (stack.length > 0) {
    const id = stack.pop()!;
    if (seen.has(id)) continue;
    seen.add(id);
    const spec = byId.get(id);
    if (spec !== undefined) stack.push(...dependenciesOf(spec, tasks, graph));
  }
  return seen;
}

function placeholderIssues(task: TaskSpec, tasks: readonly TaskSpec[], byId: ReadonlyMap<string, TaskSpec>, graph: boolean): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const path = `tasks.${task.index}.description`;
  const ancestors = ancestorsOf(task, tasks, graph);
  for (const placeholder of placeholdersOf(task.description)) {
    if (placeholder.kind === 'item') {
      if (task.forEach === undefined) {
        issues.push({ path, message: `task "${task.id}": ${placeholder.text} is only filled in a forEach task` });
        continue;
      }
      const reference = parseOutputReference(task.forEach)!;
      const items = arrayAt(byId.get(reference.taskId)!.output, reference.path)!.items;
      if (schemaAt(items === true ? undefined : items, placeholder.path) === undefined) {
        issues.push({ path, message: `task "${task.id}": ${placeholder.text} names a field the items of "${task.forEach}" do not have` });
      }
      continue;
    }
    const dependency = byId.get(placeholder.taskId);
    if (dependency === undefined || !ancestors.has(placeholder.taskId)) {
      const what = dependency === undefined ? `"${placeholder.taskId}" is not a task of this workflow` : `task "${task.id}" does not wait for "${placeholder.taskId}" (add it to dependsOn)`;
      issues.push({ path, message: `${placeholder.text}: ${what}` });
      continue;
    }
    if (placeholder.path.length === 0) continue;
    if (dependency.output === undefined) {
      issues.push({ path, message: `${placeholder.text}: task "${dependency.id}" has no output schema, so its output is text without fields` });
    } else if (schemaAt(dependency.output, placeholder.path) === undefined) {
      issues.push({ path, message: `${placeholder.text}: the output schema of task "${dependency.id}" has no "${placeholder.path.join('.')}"` });
    }
  }
  return issues;
}
