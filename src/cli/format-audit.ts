import type { AuditReport } from '../contracts/audit.js';
import { formatForkPoint, type ForkPoint } from '../contracts/fork.js';
import { formatCount, formatDuration, formatTimestamp, formatUsd, plural, type Colors } from './format.js';
import { graphBlocks, IN_PROGRESS } from './format-audit-graph.js';
import { approvalText } from './format-approval.js';
import { blockLines, boundText, endedTaskBlock, stopText } from './format-audit-task.js';
import { delegatedRuns, entryLines } from './format-audit-children.js';

/**
 * The stop tree of a run, for people: workflow → tasks → turns, each with its stop reason and
 * detail, the counters at the stop and the bound that fired, a turn's compaction, a typed answer
 * that did not match its schema and a task's wrap-up call; then the policy decisions and the `error` events that explain an `error` stop.
 * A graph run's tasks come in task order with their dependencies (format-audit-graph.ts); the runs
 * its tool calls delegated to (`report.children`, from `auditTree`) each under the turn of its call.
 */
export function formatAudit(report: AuditReport, colors: Colors): string {
  const head = `${colors.bold(report.runId)}${report.name === undefined ? '' : `  ${report.name}`}  ${colors.dim(`started ${formatTimestamp(report.createdAt)} · ${report.status}`)}`;
  const parent = report.parent === undefined ? [] : [`delegated by ${colors.bold(report.parent.runId)} (tool call ${report.parent.toolCallId})`];
  return [head, ...parent, ...treeLines(report, colors), colors.dim(`${report.events} events in the log`)].join('\n');
}

/** The tree under a run's first line; a delegated run's own (`report.children`) under the call that started it. */
function treeLines(report: AuditReport, colors: Colors): string[] {
  const lines: string[] = [];
  const stop = report.workflow.stop;
  const metrics = report.workflow.metrics;
  if (report.forkOf !== undefined) lines.push(`forked from ${colors.bold(report.forkOf.runId)} at ${formatForkPoint(report.forkOf.at)}  ${colors.dim(describeForkPoint(report.forkOf.at))}`);
  if (report.evalOf !== undefined) lines.push(`eval of ${colors.bold(report.evalOf.runId)} in suite ${report.evalOf.suite}`);
  const rerun = report.forkOf?.rerun;
  if (rerun !== undefined) lines.push(colors.dim(`  ran again: ${rerun.join(', ')}; every other task's result is ${report.forkOf!.runId}'s`));
  lines.push(`workflow  ${stopText(stop, colors)}${boundText(report.workflow.bound)}`);
  lines.push(
    colors.dim(
      `  ${plural(metrics.workflowSteps, 'step')} · ${plural(metrics.turns, 'turn')} · ${plural(metrics.toolCalls, 'tool call')} · ` +
        `${formatCount(metrics.inputTokens)} in + ${formatCount(metrics.outputTokens)} out tokens · ${formatUsd(metrics.costUsd)} · ${formatDuration(metrics.runtimeMs)}`,
    ),
  );
  if (report.strategy !== undefined) lines.push(colors.dim(`  strategy ${report.strategy.name} (chosen by ${report.strategy.by}: ${report.strategy.reason})`));
  for (const change of report.workflowChanges ?? []) lines.push(colors.magenta(`  workflow changed, accepted by ${change.acceptedBy}: ${change.changes.join('; ')}`));
  const active = report.active;
  const blocks = report.graph === undefined ? report.tasks.map((task) => endedTaskBlock(task, colors)) : graphBlocks(report, report.graph.tasks, colors);
  // The task a crashed or running list run was in, as of its latest checkpoint: it resumes from here.
  if (active !== undefined) blocks.push({ head: `… task ${active.index + 1} ${colors.bold(active.taskId)}  ${colors.dim(IN_PROGRESS)}`, description: active.description, body: active });
  const delegated = delegatedRuns(report, colors, (child) => treeLines(child, colors));
  blocks.forEach((block, index) => lines.push(...blockLines(block, index === blocks.length - 1, colors, delegated)));
  if (delegated.unplaced.length > 0) {
    lines.push(`delegated runs ${colors.dim('(of calls in a turn not recorded yet)')}`);
    lines.push(...entryLines(delegated.unplaced, '  '));
  }
  if (report.policyDecisions.length > 0) {
    lines.push('policy decisions');
    for (const decision of report.policyDecisions) {
      const subject = decision.subject === 'tool' ? `tool ${decision.toolName ?? '?'} (${decision.taskId}, ${decision.toolCallId ?? '?'})` : `task ${decision.taskId}`;
      lines.push(`  ${decision.decision.padEnd(16)} ${subject}: ${decision.reason}${approvalText(decision, colors)}`);
    }
  }
  if ((report.guardrailTrips ?? []).length > 0) {
    lines.push('guardrails');
    for (const trip of report.guardrailTrips!) {
      const where = `${trip.taskId} turn ${trip.turn}${trip.toolCallId === undefined ? '' : `, ${trip.toolCallId}`}`;
      lines.push(`  ${(trip.mode === 'revise' ? colors.yellow : colors.red)(trip.name.padEnd(16))} ${trip.on} (${where}), ${trip.mode === 'revise' ? 'revise' : 'stop'}: ${trip.reason}`);
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
  return lines;
}

/** `before turn 6 of task 3` / `before task 3`: what a fork point means, for people. */
export function describeForkPoint(at: ForkPoint): string {
  return at.turn === undefined || at.turn === 1 ? `(before task ${at.task})` : `(before turn ${at.turn} of task ${at.task})`;
}
