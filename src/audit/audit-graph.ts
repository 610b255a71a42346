/**
 * The graph section of a graph run's audit (docs/workflows.md): every task of the run record, in
 * task order, with the tasks it waits for, where it stands, and its fan-out items. Pure.
 */
import type { AuditGraphTask } from '../contracts/audit.js';
import { isItemOf } from '../contracts/task-id.js';
import type { TaskSpec } from '../contracts/turn-protocol.js';
import { dependenciesOf, isGraph } from '../graph/task-graph.js';

/** A task the audit has: one that ended or one that runs; an item carries its task's index. */
interface Known {
  readonly taskId: string;
  readonly index: number;
}

/** The graph of a run whose tasks form one; undefined for a list. */
export function auditGraph(specs: readonly TaskSpec[], ended: readonly Known[], running: readonly Known[]): { readonly tasks: readonly AuditGraphTask[] } | undefined {
  if (!isGraph(specs)) return undefined;
  const endedIds = new Set(ended.map((task) => task.taskId));
  const runningIds = new Set(running.map((task) => task.taskId));
  const known = [...ended, ...running];
  return {
    tasks: specs.map((spec): AuditGraphTask => {
      const items = spec.forEach === undefined ? undefined : itemsOf(spec, known);
      const state = endedIds.has(spec.id) ? 'ended' : runningIds.has(spec.id) || (items?.length ?? 0) > 0 ? 'in_progress' : 'not_started';
      return {
        taskId: spec.id,
        index: spec.index,
        description: spec.description,
        dependsOn: dependenciesOf(spec, specs, true),
        ...(spec.forEach === undefined ? {} : { forEach: spec.forEach }),
        state,
        ...(items === undefined ? {} : { items }),
      };
    }),
  };
}

/** A fan-out task's items among the known tasks (they share its index), by position, each once. */
function itemsOf(spec: TaskSpec, known: readonly Known[]): readonly string[] {
  const ids = new Set(known.filter((task) => task.index === spec.index && isItemOf(task.taskId, spec.id)).map((task) => task.taskId));
  return [...ids].sort((a, b) => positionOf(a) - positionOf(b));
}

/** `3` for `files[3]`: fan-out items are `<taskId>[<position>]`. */
function positionOf(itemId: string): number {
  return Number(/\[(\d+)\]$/.exec(itemId)?.[1] ?? 0);
}
