import type { KernelEvent } from '../../contracts/events.js';
import type { StopCondition } from '../../contracts/stop.js';
import { isItemOf } from '../../contracts/task-id.js';
import type { TaskSpec } from '../../contracts/turn-protocol.js';
import { dependenciesOf, isGraph } from '../../graph/task-graph.js';
import { INITIAL_STATES, reduceActiveStates } from './active-states.js';

/**
 * Where a task stands: `waiting` for its dependencies (or for a slot), `running` in its own turn
 * machine (a fan-out task: while its items run), `ended` with its stop, or `kept`: a graph fork
 * took its result from the source run and does not run it.
 */
export type TaskNodeState = 'waiting' | 'running' | 'ended' | 'kept';

/** A task of the run, or a fan-out item, as the events up to the cursor leave it. */
export interface TaskStatus {
  readonly taskId: string;
  readonly state: TaskNodeState;
  /** Its latest stop; a task that runs again after a resume has none until it ends again. */
  readonly stop?: StopCondition;
  /** The state its turn machine is in, while it runs (`PLAN`, `ACT`…). */
  readonly turnState?: string;
  readonly turn: number;
}

export interface TaskNode extends TaskStatus {
  readonly index: number;
  /** The tasks it waits for: its `dependsOn` and its `forEach` source. */
  readonly dependsOn: readonly string[];
  readonly forEach?: string;
  /** A fan-out task's items that started, in the order they did. */
  readonly items: readonly TaskStatus[];
}

export interface TaskGraphModel {
  readonly nodes: readonly TaskNode[];
  /** One per dependency: `source` must end before `target` starts. */
  readonly edges: readonly { readonly source: string; readonly target: string }[];
}

/** The tasks' ids and dependencies of a graph run (what its layout depends on); undefined for a list. */
export function taskGraphShape(tasks: readonly TaskSpec[]): { readonly tasks: readonly string[]; readonly edges: TaskGraphModel['edges'] } | undefined {
  if (!isGraph(tasks)) return undefined;
  return { tasks: tasks.map((task) => task.id), edges: tasks.flatMap((task) => dependenciesOf(task, tasks, true).map((source) => ({ source, target: task.id }))) };
}

/**
 * The task graph of a graph run (tasks with `dependsOn` or `forEach`) after the first `count`
 * events; undefined for a list. Pure: folded from the events as the machines' states are
 * (active-states.ts), so a live run and a replay show the same. A fork's first `workflow_start`
 * names the tasks it runs again (`forkOf.rerun`); the others are `kept`.
 */
export function taskGraphAt(tasks: readonly TaskSpec[], events: readonly KernelEvent[], count: number): TaskGraphModel | undefined {
  if (!isGraph(tasks)) return undefined;
  const statuses = new Map<string, TaskStatus>();
  let rerun: ReadonlySet<string> | undefined;
  for (const event of events.slice(0, count)) {
    if (event.type === 'workflow_start' && event.forkOf?.rerun !== undefined && rerun === undefined) rerun = new Set(event.forkOf.rerun);
    const taskId = 'taskId' in event ? event.taskId : undefined;
    if (taskId === undefined) continue;
    const status = reduceStatus(statuses.get(taskId), taskId, event);
    if (status !== undefined) statuses.set(taskId, status);
  }
  const order = [...statuses.keys()];
  const nodes = tasks.map((spec): TaskNode => {
    const own = statuses.get(spec.id);
    const items = order.filter((id) => isItemOf(id, spec.id)).map((id) => statuses.get(id)!);
    const itemsRun = items.some((item) => item.state === 'running') || (items.length > 0 && own?.state !== 'ended');
    const kept = rerun !== undefined && !rerun.has(spec.id) && own === undefined;
    const status: TaskStatus = own ?? { taskId: spec.id, state: kept ? 'kept' : 'waiting', turn: 0 };
    return {
      ...status,
      ...(itemsRun && status.state !== 'running' ? { state: 'running' as const } : {}),
      index: spec.index,
      dependsOn: dependenciesOf(spec, tasks, true),
      ...(spec.forEach === undefined ? {} : { forEach: spec.forEach }),
      items,
    };
  });
  return { nodes, edges: taskGraphShape(tasks)!.edges };
}

/**
 * One event of a task folded into its status (undefined: the task has not started, as at its
 * policy gate); its turn machine's state as active-states.ts folds it.
 */
function reduceStatus(status: TaskStatus | undefined, taskId: string, event: KernelEvent): TaskStatus | undefined {
  if (event.type === 'task_start') return { taskId, state: 'running', turnState: 'TURN_INIT', turn: 0 };
  if (event.type === 'task_end') return { taskId, state: 'ended', stop: event.stop, turn: event.counters.turns };
  if (status?.state !== 'running') return status;
  const turnState = reduceActiveStates({ ...INITIAL_STATES, turn: status.turnState }, event).turn;
  return { ...status, ...(turnState === undefined ? {} : { turnState }), ...(event.type === 'turn_start' ? { turn: event.turn } : {}) };
}
