import type { KernelEvent } from '../../contracts/events.js';

/**
 * Where the run is in each machine, as the state paths of the definitions (`TASK_SELECT.PICK`,
 * `ACT`). `turn` is the running task's turn machine, or the last task's after it ended;
 * undefined before the first task.
 */
export interface ActiveStates {
  readonly workflow: string;
  readonly turn: string | undefined;
}

export const INITIAL_STATES: ActiveStates = { workflow: 'INIT', turn: undefined };

/**
 * Folds one event into the machines' states. Pure; the same fold serves a live run, a run tailed
 * from a store in another process and a replay (ADR/0081). Every state the kernel can wait in
 * has an event that enters it: `task_start` (TASK_EXECUTE, from its entry action),
 * `compaction_start` (COMPACT), `message_start` (PLAN, or WRAP_UP for the wrap-up call), the tool
 * events (ACT), the gate's `policy_decision` (TASK_SELECT.GATE), `task_end` (CHECKPOINT) and the task
 * `checkpoint_saved` (NEXT_TASK); test/viewer/active-states.test.ts checks the fold against the
 * actors' snapshots at those waits. States the machines pass through within one step (INIT,
 * OBSERVE, NEXT_TURN) are not shown (docs/viewer.md).
 */
export function reduceActiveStates(states: ActiveStates, event: KernelEvent): ActiveStates {
  switch (event.type) {
    case 'workflow_start':
      return { workflow: 'TASK_SELECT.PICK', turn: undefined };
    case 'strategy_selected':
    case 'plan_created':
    case 'plan_revised':
      return { ...states, workflow: 'TASK_SELECT.PICK' };
    case 'policy_decision':
      return event.subject === 'task' ? { ...states, workflow: 'TASK_SELECT.GATE' } : { ...states, turn: 'ACT' };
    case 'task_start':
      return { workflow: 'TASK_EXECUTE', turn: 'TURN_INIT' };
    case 'turn_start':
      return { ...states, turn: 'TURN_INIT' };
    case 'compaction_start':
      return { ...states, turn: 'COMPACT' };
    case 'compaction_end':
      return { ...states, turn: COMPACTION_NEXT[event.outcome] };
    case 'message_start':
      return { ...states, turn: event.wrapUp ? 'WRAP_UP' : 'PLAN' };
    case 'message_end':
      return { ...states, turn: afterModelCall(states, event) };
    case 'tool_execution_start':
    case 'tool_execution_update':
    case 'tool_execution_end':
      return { ...states, turn: 'ACT' };
    case 'turn_end':
      return { ...states, turn: event.result.stop === undefined ? 'NEXT_TURN' : 'DONE' };
    case 'task_end':
      return { ...states, workflow: 'CHECKPOINT', turn: 'DONE' };
    case 'checkpoint_saved':
      return event.kind === 'task' ? { ...states, workflow: 'NEXT_TASK' } : states;
    case 'workflow_end':
      return { ...states, workflow: 'DONE', turn: states.turn === undefined ? undefined : 'DONE' };
    default:
      return states;
  }
}

/** Where COMPACT goes: the model call, CHECK_STOP (which ends the task `error`), or the task's end. */
const COMPACTION_NEXT: Readonly<Record<Extract<KernelEvent, { type: 'compaction_end' }>['outcome'], string>> = {
  compacted: 'PLAN',
  failed: 'CHECK_STOP',
  canceled: 'DONE',
};

function afterModelCall(states: ActiveStates, event: Extract<KernelEvent, { type: 'message_end' }>): string {
  if (event.finishReason === 'canceled' || states.turn === 'WRAP_UP') return 'DONE';
  if (event.finishReason !== 'error' && event.toolCalls.length > 0) return 'ACT';
  return 'CHECK_STOP';
}

/** The states after the first `count` events. */
export function activeStatesAt(events: readonly KernelEvent[], count: number): ActiveStates {
  let states = INITIAL_STATES;
  for (let index = 0; index < Math.min(count, events.length); index += 1) states = reduceActiveStates(states, events[index]!);
  return states;
}

/** The path and its ancestors (`TASK_SELECT.PICK` → `TASK_SELECT`, `TASK_SELECT.PICK`): all are active. */
export function activePaths(path: string | undefined): readonly string[] {
  if (path === undefined) return [];
  const parts = path.split('.');
  return parts.map((_, index) => parts.slice(0, index + 1).join('.'));
}
