import type { KernelEvent } from '../../contracts/events.js';
import type { StopCondition } from '../../contracts/stop.js';

/** One stretch of a branch: from its `task_start` to its `task_end`, or to the cursor while it runs. */
export interface LaneSpan {
  readonly from: number;
  readonly to: number;
  /** Positions of its start and end events in the run's event list (the scrubber's unit). */
  readonly startPosition: number;
  readonly endPosition: number | undefined;
  readonly stop?: StopCondition;
}

/** A moment of a branch worth a tick: a turn started, a tool started, an error. */
export interface LaneMark {
  readonly position: number;
  readonly at: number;
  readonly kind: 'turn' | 'tool' | 'error';
  readonly label: string;
}

/** One branch: a task, or a fan-out item (`<taskId>[i]`), each in its own turn machine. A resumed task has a span per start. */
export interface Lane {
  readonly taskId: string;
  readonly index: number;
  readonly spans: readonly LaneSpan[];
  readonly marks: readonly LaneMark[];
}

/** The lanes and the clock times they are drawn between: the whole run's, whatever the cursor. */
export interface Lanes {
  readonly from: number;
  readonly to: number;
  /** The time of the cursor's event: where the replay stands. */
  readonly cursorAt: number;
  readonly lanes: readonly Lane[];
}

/**
 * The timeline of a graph run as lanes, one per branch, in the order the branches started, as
 * the first `count` events leave them (a branch still running reaches to the cursor), on the
 * scale of all of `events`: branches that overlap in time ran at once. Pure.
 */
export function timelineLanes(events: readonly KernelEvent[], count: number): Lanes {
  const shown = events.slice(0, count);
  const from = events[0]?.at ?? 0;
  const to = Math.max(from, events[events.length - 1]?.at ?? from);
  const cursorAt = shown[shown.length - 1]?.at ?? from;
  const lanes = new Map<string, { index: number; spans: LaneSpan[]; marks: LaneMark[] }>();
  shown.forEach((event, position) => {
    if (event.type === 'task_start') {
      const lane = lanes.get(event.taskId) ?? { index: event.taskIndex, spans: [], marks: [] };
      lane.spans.push({ from: event.at, to: cursorAt, startPosition: position, endPosition: undefined });
      lanes.set(event.taskId, lane);
      return;
    }
    const taskId = 'taskId' in event ? event.taskId : undefined;
    const lane = taskId === undefined ? undefined : lanes.get(taskId);
    if (lane === undefined) return;
    if (event.type === 'task_end') {
      const open = lane.spans.at(-1);
      if (open !== undefined && open.endPosition === undefined) lane.spans[lane.spans.length - 1] = { ...open, to: event.at, endPosition: position, stop: event.stop };
      return;
    }
    const mark = markOf(event);
    if (mark !== undefined) lane.marks.push({ position, at: event.at, ...mark });
  });
  return { from, to, cursorAt, lanes: [...lanes].map(([taskId, lane]) => ({ taskId, ...lane })) };
}

/** Where `at` falls between the lanes' start and end, 0..1. */
export function laneFraction(lanes: Pick<Lanes, 'from' | 'to'>, at: number): number {
  return lanes.to === lanes.from ? 0 : Math.min(1, Math.max(0, (at - lanes.from) / (lanes.to - lanes.from)));
}

function markOf(event: KernelEvent): Pick<LaneMark, 'kind' | 'label'> | undefined {
  switch (event.type) {
    case 'turn_start':
      return { kind: 'turn', label: `turn ${event.turn}` };
    case 'tool_execution_start':
      return { kind: 'tool', label: event.name };
    case 'error':
      return { kind: 'error', label: `${event.scope} error: ${event.message}` };
    default:
      return undefined;
  }
}
