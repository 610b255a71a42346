/**
 * The table `dualloop eval` prints (docs/evals.md, "Reading the table"): one row per case —
 * baseline and candidate stop reason, turns, tool calls, cost, whether the output changed, the
 * first divergent turn and each score — then the mean per scorer with its gate.
 */
import type { EvalCaseReport, EvalReport } from '../../contracts/evals.js';
import type { Colors } from '../format.js';
import { formatUsd } from '../format.js';

export interface Gate {
  readonly scorer: string;
  readonly threshold: number;
}

export function evalTable(report: EvalReport, gates: readonly Gate[], colors: Colors): string {
  const scorers = Object.keys(report.means);
  const header = ['CASE', 'STOP (baseline → candidate)', 'TURNS', 'TOOLS', 'COST', 'OUTPUT', 'DIVERGES', ...scorers];
  const rows = report.cases.map((entry) => [entry.name, stopCell(entry), pair(entry, 'turns'), pair(entry, 'toolCalls'), costCell(entry), outputCell(entry), entry.divergedAt === undefined ? '' : `turn ${entry.divergedAt}`, ...scorers.map((scorer) => scoreCell(entry, scorer))]);
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const line = (cells: readonly string[]) => cells.map((cell, column) => cell.padEnd(widths[column]!)).join('  ').trimEnd();
  const lines = [colors.dim(line(header)), ...rows.map(line)];
  for (const entry of report.cases) {
    if (entry.problem !== undefined) lines.push(`${colors.yellow(entry.status)} ${entry.name}: ${entry.problem}`);
    // Why a case lost points, in the scorer's words.
    for (const score of entry.scores) if (score.score < 1 && score.reason !== undefined) lines.push(`  ${entry.name} · ${score.scorer} ${score.score.toFixed(2)}: ${score.reason}`);
  }
  const { totals } = report;
  lines.push('');
  lines.push(
    `${totals.evaluated}/${totals.cases} cases evaluated` +
      (totals.skipped > 0 ? `, ${totals.skipped} skipped` : '') +
      (totals.failed > 0 ? `, ${colors.red(`${totals.failed} failed`)}` : '') +
      ` · candidate ${formatUsd(totals.candidateCostUsd)} (baseline ${formatUsd(totals.baselineCostUsd)}) · tools ${report.tools}` +
      (report.stop === 'completed' ? '' : ` · suite stopped: ${colors.yellow(report.stop)}`),
  );
  for (const scorer of scorers) {
    const mean = report.means[scorer]!;
    const gate = gates.find((entry) => entry.scorer === scorer);
    const verdict = gate === undefined ? '' : mean >= gate.threshold ? `  ${colors.green(`≥ ${gate.threshold} pass`)}` : `  ${colors.red(`< ${gate.threshold} FAIL`)}`;
    lines.push(`mean ${scorer.padEnd(Math.max(...scorers.map((name) => name.length)))}  ${mean.toFixed(3)}${verdict}`);
  }
  return `${lines.join('\n')}\n`;
}

function stopCell(entry: EvalCaseReport): string {
  if (entry.candidate === undefined) return entry.status;
  const candidate = entry.candidate.stop.reason;
  return entry.baseline === undefined ? `— → ${candidate}` : `${entry.baseline.stop.reason} → ${candidate}`;
}

function pair(entry: EvalCaseReport, field: 'turns' | 'toolCalls'): string {
  if (entry.candidate === undefined) return '';
  return entry.baseline === undefined ? `${entry.candidate[field]}` : `${entry.baseline[field]} → ${entry.candidate[field]}`;
}

function costCell(entry: EvalCaseReport): string {
  if (entry.candidate === undefined) return '';
  return entry.baseline === undefined ? formatUsd(entry.candidate.costUsd) : `${formatUsd(entry.baseline.costUsd)} → ${formatUsd(entry.candidate.costUsd)}`;
}

function outputCell(entry: EvalCaseReport): string {
  if (entry.outputChanged === undefined) return '';
  return entry.outputChanged ? 'changed' : 'same';
}

function scoreCell(entry: EvalCaseReport, scorer: string): string {
  const found = entry.scores.find((score) => score.scorer === scorer);
  return found === undefined ? '' : found.score.toFixed(2);
}
