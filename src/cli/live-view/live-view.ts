import { createLogUpdate } from 'log-update';
import type { AnyActorRef } from 'xstate';
import type { OuterBounds } from '../../contracts/bounds.js';
import type { KernelEvent } from '../../contracts/events.js';
import type { WorkflowMetrics, WorkflowResult } from '../../contracts/results.js';
import type { TaskSpec } from '../../contracts/turn-protocol.js';
import type { Colors } from '../format.js';
import type { RunOutput } from '../run-output.js';
import { isGraph } from '../../graph/task-graph.js';
import { initialProgress, reduceProgress, runningTask, taskTotal, type ProgressState } from './progress-model.js';
import { formatStateValue, renderProgress, renderTaskEnd, renderWorkflowEnd, type BranchFrame } from './render-progress.js';

export interface LiveViewOptions {
  readonly stream: NodeJS.WriteStream;
  readonly colors: Colors;
  readonly name: string;
  readonly runId: string;
  /** The root actor; its snapshot gives the outer state and, through its children (`task`, a graph's `task.<taskId>`), the inner ones. */
  readonly actor: AnyActorRef;
  /** The run's tasks with their resolved bounds (from the store's run record). */
  readonly tasks: readonly TaskSpec[];
  readonly outer: OuterBounds;
  /** What a resumed run had done before: its metrics and finished tasks. */
  readonly before?: { readonly metrics: WorkflowMetrics; readonly tasksDone: number };
  readonly now?: () => number;
  /** Redraw period for the clocks, in milliseconds. */
  readonly refreshMs?: number;
}

/** Where the view writes: a block redrawn in place, and lines kept above it. */
interface Screen {
  (block: string): void;
  persist(line: string): void;
  clear(): void;
  done(): void;
}

/**
 * The terminal view: a status block redrawn in place (outer and inner state, task i/n, turn,
 * tool calls, tokens and cost against their bounds, elapsed against the deadlines; a graph run
 * gets a line per running task, with its own turn machine's state) above which each finished
 * task leaves one line. Written with log-update, which redraws only changed lines.
 * A terminal that reports no size (0 columns or rows, as a pty made by `script` without a
 * terminal around it) gets the lines alone, without the block: wrapped to zero columns, every
 * character would take a line of its own.
 */
export function createLiveView(options: LiveViewOptions): RunOutput {
  const { stream, colors, actor } = options;
  const now = options.now ?? Date.now;
  const sized = (stream.columns ?? 0) > 0 && (stream.rows ?? 0) > 0;
  const update: Screen = sized ? createLogUpdate(stream) : plainLines(stream, `${colors.cyan('dualloop')} ${colors.bold(options.name)} ${colors.dim(options.runId)}`);
  const startedAt = now();
  const elapsedBefore = options.before?.metrics.runtimeMs ?? 0;
  let progress: ProgressState = initialProgress(options.before?.metrics, options.before?.tasksDone ?? 0);
  let finished = false;

  const graph = isGraph(options.tasks);
  const frame = () => {
    const snapshot = actor.getSnapshot() as { value: unknown; children: Record<string, AnyActorRef | undefined> };
    const at = now();
    const branches = progress.running.map((task): BranchFrame => {
      // A list's one turn machine is `task`; a graph's are `task.<taskId>` (ADR/0420).
      const machine = snapshot.children[graph ? `task.${task.id}` : 'task'];
      return {
        task,
        innerState: machine === undefined ? undefined : formatStateValue((machine.getSnapshot() as { value: unknown }).value),
        bounds: options.tasks[task.index]?.bounds,
        elapsedMs: at - task.startedAt,
      };
    });
    return renderProgress({ name: options.name, runId: options.runId, outerState: formatStateValue(snapshot.value), branches, graph, progress, outer: options.outer, sessionElapsedMs: elapsedBefore + (at - startedAt) }, colors);
  };
  const draw = () => {
    if (!finished) update(frame());
  };
  // The clocks of the block tick between events; plain lines have no block to redraw.
  const timer = sized ? setInterval(draw, options.refreshMs ?? 100) : undefined;
  timer?.unref();

  return {
    onEvent(event: KernelEvent) {
      const answer = event.type === 'task_end' ? (runningTask(progress, event.taskId)?.lastText ?? '') : '';
      progress = reduceProgress(progress, event);
      if (event.type === 'task_end') {
        const total = Math.max(taskTotal(progress), options.tasks.length);
        const width = sized ? Math.max(40, stream.columns * 2 - 8) : undefined;
        update.persist(renderTaskEnd({ id: event.taskId, index: event.taskIndex, total }, event.stop, event.counters, colors, answer, width));
      } else if (event.type === 'error' || event.type === 'warning') {
        update.persist(colors.dim(`${event.type}: ${event.message}`));
      }
      draw();
    },
    finish(result: WorkflowResult) {
      clearInterval(timer);
      finished = true;
      update.clear();
      update.done();
      stream.write(`${renderWorkflowEnd(result.stop, result.metrics, result.tasks.length, colors)}\n`);
    },
    note(message: string) {
      if (finished) stream.write(`${message}\n`);
      else update.persist(message);
      draw();
    },
  };
}

/** The view without a block: a header line, then each kept line as it comes. */
function plainLines(stream: NodeJS.WriteStream, header: string): Screen {
  stream.write(`${header}\n`);
  return Object.assign(() => undefined, { persist: (line: string) => void stream.write(`${line}\n`), clear: () => undefined, done: () => undefined });
}
