import type { AuditCompaction, AuditOutputInvalid, AuditReport, AuditTask, AuditTurn, AuditWrapUp } from '../contracts/audit.js';
import { describeOutputIssues } from '../contracts/typed-output.js';
import { formatForkPoint, type ForkPoint } from '../contracts/fork.js';
import type { StopBound, StopCondition } from '../contracts/stop.js';
import { colorReason, formatCount, formatDuration, formatTimestamp, formatUsd, plural, stopMark, type Colors } from './format.js';

/**
 * The stop tree of a run, for people: workflow → tasks → turns, each with its stop reason and
 * detail, the counters at the stop and the bound that fired, a turn's compaction, a typed answer
 * that did not match its schema and a task's wrap-up call; then the policy decisions and the `error` events that explain an `error` stop.
 */
export function formatAudit(report: AuditReport, colors: Colors): string {
  const lines: string[] = [];
  const stop = report.workflow.stop;
  const metrics = report.workflow.metrics;
  lines.push(`${colors.bold(report.runId)}${report.name === undefined ? '' : `  ${report.name}`}  ${colors.dim(`started ${formatTimestamp(report.createdAt)} · ${report.status}`)}`);
  if (report.forkOf !== undefined) lines.push(`forked from ${colors.bold(report.forkOf.runId)} at ${formatForkPoint(report.forkOf.at)}  ${colors.dim(describeForkPoint(report.forkOf.at))}`);
  lines.push(`workflow  ${stopText(stop, colors)}${boundText(report.workflow.bound)}`);
  lines.push(
    colors.dim(
      `  ${plural(metrics.workflowSteps, 'step')} · ${plural(metrics.turns, 'turn')} · ${plural(metrics.toolCalls, 'tool call')} · ` +
        `${formatCount(metrics.inputTokens)} in + ${formatCount(metrics.outputTokens)} out tokens · ${formatUsd(metrics.costUsd)} · ${formatDuration(metrics.runtimeMs)}`,
    ),
  );
  if (report.strategy !== undefined) lines.push(colors.dim(`  strategy ${report.strategy.name} (chosen by ${report.strategy.by}: ${report.strategy.reason})`));
  const active = report.active;
  report.tasks.forEach((task, index) => lines.push(...taskLines(task, index === report.tasks.length - 1 && active === undefined, colors)));
  if (active !== undefined) {
    // The task a crashed or running run was in, as of its latest checkpoint: it resumes from here.
    lines.push(...taskLines({ ...active, stop: { reason: 'context_canceled', detail: '', at: 0 } }, true, colors, 'in progress at the last checkpoint (resumable)'));
  }
  if (report.policyDecisions.length > 0) {
    lines.push('policy decisions');
    for (const decision of report.policyDecisions) {
      const subject = decision.subject === 'tool' ? `tool ${decision.toolName ?? '?'} (${decision.taskId}, ${decision.toolCallId ?? '?'})` : `task ${decision.taskId}`;
      const approval = decision.approvalId === undefined ? '' : colors.dim(` [approval ${decision.approvalId}]`);
      lines.push(`  ${decision.decision.padEnd(16)} ${subject}: ${decision.reason}${approval}`);
    }
  }
  if (report.errors.length > 0) {
    lines.push('errors');
    for (const error of report.errors) lines.push(`  ${colors.red(error.scope.padEnd(16))} ${error.taskId === undefined ? '' : `${error.taskId}: `}${error.message}`);
  }
  if (report.plans.length > 0) {
    lines.push('plans');
    for (const plan of report.plans) lines.push(`  ${plan.kind}: ${plan.steps.join(' → ')}${plan.reason === undefined ? '' : colors.dim(` (${plan.reason})`)}`);
  }
  lines.push(colors.dim(`${report.events} events in the log`));
  return lines.join('\n');
}

function taskLines(task: AuditTask, last: boolean, colors: Colors, inProgress?: string): string[] {
  const branch = last ? '└─' : '├─';
  const rail = last ? '   ' : '│  ';
  const counters = task.counters;
  const state = inProgress === undefined ? `${stopMark(task.stop.reason)} task ${task.index + 1} ${colors.bold(task.taskId)}  ${stopText(task.stop, colors)}${boundText(task.bound)}` : `… task ${task.index + 1} ${colors.bold(task.taskId)}  ${colors.dim(inProgress)}`;
  const lines = [
    `${branch} ${state}`,
    `${rail}  ${colors.dim(`"${task.description}"`)}`,
    `${rail}  ${colors.dim(`${plural(counters.turns, 'turn')} · ${plural(counters.toolCalls, 'tool call')} · ${formatCount(counters.inputTokens + counters.outputTokens)} tokens · ${formatUsd(counters.costUsd)} · ${formatDuration(counters.runtimeMs)}`)}`,
  ];
  // The turns in order, a compaction whose turn has no record where that turn would be, then the wrap-up call.
  const turns = task.turns.map((turn) => ({ turn: turn.turn, text: turnText(turn, colors) }));
  const unrecorded = unrecordedCompactions(task).map((compaction) => ({ turn: compaction.turn, text: `before turn ${compaction.turn}  ${compactionText(compaction, colors)}` }));
  const items = [...turns, ...unrecorded].sort((a, b) => a.turn - b.turn).map((item) => item.text);
  if (task.wrapUp !== undefined) items.push(wrapUpText(task.wrapUp, colors));
  items.forEach((text, index) => lines.push(`${rail}  ${index === items.length - 1 ? '└─' : '├─'} ${text}`));
  return lines;
}

function turnText(turn: AuditTurn, colors: Colors): string {
  const compaction = turn.compaction === undefined ? '' : `  ${compactionText(turn.compaction, colors)}`;
  const calls = turn.toolCalls.map((call) => (call.isError ? colors.red(`${call.name}✗`) : call.name)).join(', ');
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
function unrecordedCompactions(task: AuditTask): readonly AuditCompaction[] {
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

function stopText(stop: StopCondition | undefined, colors: Colors): string {
  if (stop === undefined) return colors.dim('no stop yet (running, or interrupted without a result)');
  return `${colorReason(stop.reason, colors)} ${colors.dim(`— ${stop.detail}`)}`;
}

function boundText(bound: StopBound | undefined): string {
  return bound === undefined ? '' : `  [${bound.name} ${bound.value}/${bound.limit}]`;
}

/** `before turn 6 of task 3` / `before task 3`: what a fork point means, for people. */
export function describeForkPoint(at: ForkPoint): string {
  return at.turn === undefined || at.turn === 1 ? `(before task ${at.task})` : `(before turn ${at.turn} of task ${at.task})`;
}
