import type { AuditCompaction, AuditOutputInvalid, AuditTask, AuditTurn, AuditWrapUp } from '../contracts/audit.js';
import { describeOutputIssues } from '../contracts/typed-output.js';
import type { StopBound, StopCondition } from '../contracts/stop.js';
import { toolCallText } from './format-approval.js';
import { entryBranch, entryLines, type DelegatedRuns } from './format-audit-children.js';
import { colorReason, formatCount, formatDuration, formatUsd, plural, stopMark, type Colors } from './format.js';

/** What a task's block shows under its first line when it ran: counters, turns, compactions, the wrap-up call. */
export type TaskBody = Pick<AuditTask, 'counters' | 'turns' | 'compactions'> & { readonly wrapUp?: AuditWrapUp; readonly taskId?: string };

/** One task of the stop tree: its first line, its description, what it did (if it ran) and the blocks under it (fan-out items). */
export interface TaskBlock {
  readonly head: string;
  readonly description: string;
  readonly body?: TaskBody;
  readonly children?: readonly TaskBlock[];
}

/**
 * A task's lines: `├─ head` (`└─` for the last of its level), the description and counters, then
 * its turns in order (a compaction whose turn has no record where that turn would be), each with
 * the runs its calls delegated to under it, the wrap-up call, a delegated run whose turn has no
 * record, and the blocks under it, each indented under the task.
 */
export function blockLines(block: TaskBlock, last: boolean, colors: Colors, delegated?: DelegatedRuns): string[] {
  const rail = last ? '   ' : '│  ';
  const lines = [`${last ? '└─' : '├─'} ${block.head}`, `${rail}  ${colors.dim(`"${block.description}"`)}`];
  const entries: ((last: boolean) => string[])[] = [];
  const { body } = block;
  if (body !== undefined) {
    const counters = body.counters;
    lines.push(`${rail}  ${colors.dim(`${plural(counters.turns, 'turn')} · ${plural(counters.toolCalls, 'tool call')} · ${formatCount(counters.inputTokens + counters.outputTokens)} tokens · ${formatUsd(counters.costUsd)} · ${formatDuration(counters.runtimeMs)}`)}`);
    const runs = delegated?.forTask(body.taskId) ?? [];
    const recorded = new Set(body.turns.map((turn) => turn.turn));
    const turns = body.turns.map((turn) => ({ turn: turn.turn, text: turnText(turn, colors), runs: runs.filter((run) => run.turn === turn.turn) }));
    const unrecorded = unrecordedCompactions(body).map((compaction) => ({ turn: compaction.turn, text: `before turn ${compaction.turn}  ${compactionText(compaction, colors)}`, runs: [] }));
    const items = [...turns, ...unrecorded].sort((a, b) => a.turn - b.turn);
    entries.push(...items.map((item) => (isLast: boolean) => [`${isLast ? '└─' : '├─'} ${item.text}`, ...entryLines(item.runs, isLast ? '   ' : '│  ')]));
    if (body.wrapUp !== undefined) {
      const text = wrapUpText(body.wrapUp, colors);
      entries.push((isLast) => [`${isLast ? '└─' : '├─'} ${text}`]);
    }
    const unplaced = runs.filter((run) => run.turn === undefined || !recorded.has(run.turn));
    entries.push(...unplaced.map((run) => (isLast: boolean) => entryBranch(run, isLast)));
  }
  entries.push(...(block.children ?? []).map((child) => (isLast: boolean) => blockLines(child, isLast, colors, delegated)));
  entries.forEach((entry, index) => lines.push(...entry(index === entries.length - 1).map((line) => `${rail}  ${line}`)));
  return lines;
}

/** The block of a task that ended: `✓ task 2 lookup  planner_stopped — detail`. */
export function endedTaskBlock(task: AuditTask, colors: Colors, label = `task ${task.index + 1} `, after = ''): TaskBlock {
  return { head: `${stopMark(task.stop.reason)} ${label}${colors.bold(task.taskId)}${after}  ${stopText(task.stop, colors)}${boundText(task.bound)}`, description: task.description, body: task };
}

function turnText(turn: AuditTurn, colors: Colors): string {
  const compaction = turn.compaction === undefined ? '' : `  ${compactionText(turn.compaction, colors)}`;
  const calls = turn.toolCalls.map((call) => toolCallText(call, colors)).join(', ');
  const ending = turn.stop === undefined ? '' : `  ${stopText(turn.stop, colors)}`;
  const invalid = turn.outputInvalid === undefined ? '' : `  ${outputInvalidText(turn.outputInvalid, colors)}`;
  return `turn ${turn.turn}${compaction}${calls === '' ? '' : `  ${calls}`}${invalid}${ending}  ${colors.dim(formatDuration(turn.runtimeMs))}`;
}

/** `[output invalid, sent back (repair 1): title: expected string]`: a typed answer that did not match. */
function outputInvalidText(entry: AuditOutputInvalid, colors: Colors): string {
  const what = entry.outcome === 'repair' ? `sent back (repair ${entry.repairs})` : 'not sent back';
  const issues = describeOutputIssues(entry.issues);
  return colors.magenta(`[output invalid, ${what}: ${issues.length > 160 ? `${issues.slice(0, 159)}…` : issues}]`);
}

/** `[compacted 14 → 6 messages]`: the transcript was compacted before the turn's model call. */
function compactionText(compaction: AuditCompaction, colors: Colors): string {
  if (compaction.outcome === 'compacted') return colors.cyan(`[compacted ${formatCount(compaction.messagesBefore)} → ${plural(compaction.messagesAfter, 'message')}]`);
  const text = `[compaction ${compaction.outcome}, ${plural(compaction.messagesBefore, 'message')}]`;
  return compaction.outcome === 'failed' ? colors.red(text) : colors.magenta(text);
}

/** Compactions of turns the task has no record of (the turn a crash or a checkpoint cut). */
function unrecordedCompactions(task: TaskBody): readonly AuditCompaction[] {
  const recorded = new Set(task.turns.map((turn) => turn.turn));
  return task.compactions.filter((compaction) => !recorded.has(compaction.turn));
}

/** `wrap-up after turn 5  stop · 42 chars · 30 tokens · $0.0001  5ms`. */
function wrapUpText(wrapUp: AuditWrapUp, colors: Colors): string {
  const finish = wrapUp.finishReason === undefined ? '' : wrapUp.finishReason === 'error' ? `${colors.red('error')} · ` : `${wrapUp.finishReason} · `;
  const tokens = wrapUp.usage.inputTokens + wrapUp.usage.outputTokens;
  const invalid = wrapUp.outputInvalid === undefined ? '' : `  ${outputInvalidText(wrapUp.outputInvalid, colors)}`;
  return `wrap-up after turn ${wrapUp.afterTurn}  ${finish}${plural(wrapUp.textLength, 'char')} · ${plural(tokens, 'token')} · ${formatUsd(wrapUp.costUsd)}${invalid}  ${colors.dim(formatDuration(wrapUp.runtimeMs))}`;
}

export function stopText(stop: StopCondition | undefined, colors: Colors): string {
  if (stop === undefined) return colors.dim('no stop yet (running, or interrupted without a result)');
  return `${colorReason(stop.reason, colors)} ${colors.dim(`— ${stop.detail}`)}`;
}

export function boundText(bound: StopBound | undefined): string {
  return bound === undefined ? '' : `  [${bound.name} ${bound.value}/${bound.limit}]`;
}
