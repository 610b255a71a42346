import type { InnerBounds, OuterBounds } from '../../contracts/bounds.js';
import type { TaskCounters } from '../../contracts/events.js';
import type { WorkflowMetrics } from '../../contracts/results.js';
import type { StopCondition } from '../../contracts/stop.js';
import { against, colorReason, formatCount, formatDuration, formatUsd, plural, stopMark, type Colors } from '../format.js';
import { runTotals, taskTotal, type ProgressState } from './progress-model.js';

/** Everything one frame of the live view shows. */
export interface ProgressFrame {
  readonly name: string;
  readonly runId: string;
  /** The workflow machine's state (`TASK_EXECUTE`, `TASK_SELECT.GATE`…). */
  readonly outerState: string;
  /** The running task's turn machine state (`PLAN`, `ACT`…), when a task runs. */
  readonly innerState: string | undefined;
  readonly progress: ProgressState;
  readonly taskBounds: InnerBounds | undefined;
  readonly outer: OuterBounds;
  readonly taskElapsedMs: number | undefined;
  readonly sessionElapsedMs: number;
}

const DESCRIPTION_WIDTH = 48;

/** The status block, redrawn in place. Pure: same frame, same text. */
export function renderProgress(frame: ProgressFrame, colors: Colors): string {
  const { progress, outer, taskBounds } = frame;
  const total = taskTotal(progress);
  const running = progress.taskIndex === undefined ? undefined : progress.tasks[progress.taskIndex];
  const state = frame.innerState === undefined ? frame.outerState : `${frame.outerState} › ${frame.innerState}`;
  const taskLabel =
    running === undefined
      ? `tasks ${progress.tasksDone}/${total} done`
      : `task ${progress.taskIndex! + 1}/${total} ${colors.bold(running.id)} ${colors.dim(`"${truncate(running.description, DESCRIPTION_WIDTH)}"`)}`;
  const lines = [`${colors.cyan('dualloop')} ${colors.bold(frame.name)} ${colors.dim(frame.runId)}`, `  state  ${colors.cyan(state)}   ${taskLabel}`];
  if (running !== undefined) {
    const task = progress.task;
    lines.push(
      '  task   ' +
        [
          `turn ${against(String(progress.turn), limit(taskBounds?.maxTurns))}`,
          `tool calls ${against(String(task.toolCalls), limit(taskBounds?.maxToolCalls))}`,
          `tokens ${against(formatCount(task.tokens), limit(taskBounds?.maxTokens))}`,
          `cost ${against(formatUsd(task.costUsd), taskBounds?.maxCostUsd === undefined ? undefined : formatUsd(taskBounds.maxCostUsd))}`,
          `time ${against(formatDuration(frame.taskElapsedMs ?? 0), taskBounds === undefined ? undefined : formatDuration(taskBounds.maxRuntimeMs))}`,
        ].join(colors.dim(' · ')),
    );
  }
  const totals = runTotals(progress);
  lines.push(
    '  run    ' +
      [
        `tokens ${against(formatCount(totals.tokens), limit(outer.maxTokens))}`,
        `cost ${against(formatUsd(totals.costUsd), outer.maxCostUsd === undefined ? undefined : formatUsd(outer.maxCostUsd))}`,
        `tool calls ${totals.toolCalls}`,
        `elapsed ${against(formatDuration(frame.sessionElapsedMs), formatDuration(outer.maxSessionRuntimeMs))}`,
      ].join(colors.dim(' · ')),
  );
  return lines.join('\n');
}

/** The line kept in the scrollback when a task ends. */
export function renderTaskEnd(
  task: { readonly id: string; readonly index: number; readonly total: number },
  stop: StopCondition,
  counters: TaskCounters,
  colors: Colors,
  answer = '',
  answerWidth = 160,
): string {
  const numbers = [
    plural(counters.turns, 'turn'),
    plural(counters.toolCalls, 'tool call'),
    `${formatCount(counters.inputTokens + counters.outputTokens)} tokens`,
    formatUsd(counters.costUsd),
    formatDuration(counters.runtimeMs),
  ].join(' · ');
  const line = `${stopMark(stop.reason)} task ${task.index + 1}/${task.total} ${colors.bold(task.id)}  ${colorReason(stop.reason, colors)}  ${colors.dim(`${stop.detail} (${numbers})`)}`;
  return answer.trim() === '' ? line : `${line}\n  ${colors.dim('↳')} ${truncate(answer, answerWidth)}`;
}

/** The line kept in the scrollback when the workflow ends. */
export function renderWorkflowEnd(stop: StopCondition, metrics: WorkflowMetrics, tasks: number, colors: Colors): string {
  const numbers = [
    plural(tasks, 'task'),
    plural(metrics.turns, 'turn'),
    plural(metrics.toolCalls, 'tool call'),
    `${formatCount(metrics.inputTokens + metrics.outputTokens)} tokens`,
    formatUsd(metrics.costUsd),
    formatDuration(metrics.runtimeMs),
  ].join(' · ');
  return `${stopMark(stop.reason)} workflow  ${colorReason(stop.reason, colors)}  ${colors.dim(stop.detail)}\n  ${numbers}`;
}

/** An XState state value as text: `TASK_SELECT.GATE` for `{ TASK_SELECT: 'GATE' }`. */
export function formatStateValue(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value !== 'object' || value === null) return String(value);
  return Object.entries(value)
    .map(([key, child]) => {
      const inner = formatStateValue(child);
      return inner === '' ? key : `${key}.${inner}`;
    })
    .join(',');
}

function limit(value: number | undefined): string | undefined {
  return value === undefined ? undefined : formatCount(value);
}

function truncate(text: string, width: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= width ? flat : `${flat.slice(0, width - 1)}…`;
}
