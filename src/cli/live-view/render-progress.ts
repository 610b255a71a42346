import type { InnerBounds, OuterBounds } from '../../contracts/bounds.js';
import type { TaskCounters } from '../../contracts/events.js';
import type { WorkflowMetrics } from '../../contracts/results.js';
import type { StopCondition } from '../../contracts/stop.js';
import { against, colorReason, formatCount, formatDuration, formatUsd, plural, stopMark, type Colors } from '../format.js';
import { runTotals, taskTotal, type ProgressState, type RunningTask } from './progress-model.js';

/** A running task as one frame shows it. */
export interface BranchFrame {
  readonly task: RunningTask;
  /** Its turn machine's state (`PLAN`, `ACT`…), when the machine is there to ask. */
  readonly innerState: string | undefined;
  readonly bounds: InnerBounds | undefined;
  readonly elapsedMs: number;
}

/** Everything one frame of the live view shows. */
export interface ProgressFrame {
  readonly name: string;
  readonly runId: string;
  /** The workflow machine's state (`TASK_EXECUTE`, `TASK_SELECT.GATE`…). */
  readonly outerState: string;
  /** The running tasks, in the order they started: a list's one, a graph's branches. */
  readonly branches: readonly BranchFrame[];
  /** The tasks form a graph (`dependsOn`, `forEach`): each running task gets a line of its own. */
  readonly graph: boolean;
  readonly progress: ProgressState;
  readonly outer: OuterBounds;
  readonly sessionElapsedMs: number;
}

const DESCRIPTION_WIDTH = 48;

/** Most branches a graph's block lists; the others are counted on one line. */
export const MAX_BRANCH_LINES = 10;

/** The status block, redrawn in place. Pure: same frame, same text. */
export function renderProgress(frame: ProgressFrame, colors: Colors): string {
  const { progress, outer } = frame;
  const lines = [`${colors.cyan('dualloop')} ${colors.bold(frame.name)} ${colors.dim(frame.runId)}`, ...(frame.graph ? graphLines(frame, colors) : listLines(frame, colors))];
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

/** A list: the state with the running task, then that task's counters. */
function listLines(frame: ProgressFrame, colors: Colors): string[] {
  const { progress } = frame;
  const total = taskTotal(progress);
  const branch = frame.branches[0];
  const running = branch?.task;
  const state = branch?.innerState === undefined ? frame.outerState : `${frame.outerState} › ${branch.innerState}`;
  const taskLabel =
    running === undefined
      ? `tasks ${progress.tasksDone}/${total} done`
      : `task ${running.index + 1}/${total} ${colors.bold(running.id)} ${colors.dim(`"${truncate(running.description, DESCRIPTION_WIDTH)}"`)}`;
  const lines = [`  state  ${colors.cyan(state)}   ${taskLabel}`];
  if (branch !== undefined) lines.push(`  task   ${branchCounters(branch, colors)}`);
  return lines;
}

/** A graph: the workflow's state with how many tasks ended and run, then a line per running task with its turn machine's state. */
function graphLines(frame: ProgressFrame, colors: Colors): string[] {
  const { progress, branches } = frame;
  const total = taskTotal(progress);
  const lines = [`  state  ${colors.cyan(frame.outerState)}   tasks ${progress.tasksDone}/${total} done${colors.dim(' · ')}${branches.length} running`];
  for (const branch of branches.slice(0, MAX_BRANCH_LINES)) {
    const { task } = branch;
    const inner = branch.innerState === undefined ? '' : ` ${colors.cyan(`› ${branch.innerState}`)}`;
    lines.push(`  task   ${task.index + 1}/${total} ${colors.bold(task.id)}${inner}   ${branchCounters(branch, colors)}`);
  }
  if (branches.length > MAX_BRANCH_LINES) lines.push(colors.dim(`         … and ${branches.length - MAX_BRANCH_LINES} more running`));
  return lines;
}

/** A running task's turn, tool calls, tokens, cost and time against its bounds. */
function branchCounters({ task, bounds, elapsedMs }: BranchFrame, colors: Colors): string {
  const { totals } = task;
  return [
    `turn ${against(String(task.turn), limit(bounds?.maxTurns))}`,
    `tool calls ${against(String(totals.toolCalls), limit(bounds?.maxToolCalls))}`,
    `tokens ${against(formatCount(totals.tokens), limit(bounds?.maxTokens))}`,
    `cost ${against(formatUsd(totals.costUsd), bounds?.maxCostUsd === undefined ? undefined : formatUsd(bounds.maxCostUsd))}`,
    `time ${against(formatDuration(elapsedMs), bounds === undefined ? undefined : formatDuration(bounds.maxRuntimeMs))}`,
  ].join(colors.dim(' · '));
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
