import type { AuditChild, AuditReport } from '../contracts/audit.js';
import type { Colors } from './format.js';

/** A delegated run as lines of the parent's stop tree: its call, then its own tree. */
export interface DelegatedEntry {
  /** The parent's turn that made the call; absent while that turn has no record. */
  readonly turn?: number;
  readonly lines: readonly string[];
}

/** The delegated runs of each task of the parent, by task id, and those whose call has no recorded turn. */
export interface DelegatedRuns {
  forTask(taskId: string | undefined): readonly DelegatedEntry[];
  readonly unplaced: readonly DelegatedEntry[];
}

/** `tree`: the lines of a stop tree below its first line (format-audit.ts), for the child's own. */
export function delegatedRuns(report: AuditReport, colors: Colors, tree: (child: AuditReport) => string[]): DelegatedRuns {
  const byTask = new Map<string, DelegatedEntry[]>();
  const unplaced: DelegatedEntry[] = [];
  for (const child of report.children ?? []) {
    const entry = { ...(child.turn === undefined ? {} : { turn: child.turn }), lines: [callLine(child, colors), ...tree(child.report)] };
    if (child.taskId === undefined) unplaced.push(entry);
    else byTask.set(child.taskId, [...(byTask.get(child.taskId) ?? []), entry]);
  }
  return { forTask: (taskId) => (taskId === undefined ? [] : (byTask.get(taskId) ?? [])), unplaced };
}

/** `researcher call_1 → child run writer.t0.1.0  finished`. */
function callLine(child: AuditChild, colors: Colors): string {
  return `${child.toolName ?? 'call'} ${colors.dim(child.toolCallId)} → child run ${colors.bold(child.runId)}  ${colors.dim(child.report.status)}`;
}

/** An entry as tree lines: behind its branch (`├─`, or `└─` when it is the last of its level). */
export function entryBranch(entry: DelegatedEntry, last: boolean): string[] {
  const [head = '', ...rest] = entry.lines;
  return [`${last ? '└─' : '├─'} ${head}`, ...rest.map((line) => `${last ? '   ' : '│  '}${line}`)];
}

/** Entries as tree lines under `rail`. */
export function entryLines(entries: readonly DelegatedEntry[], rail: string): string[] {
  return entries.flatMap((entry, index) => entryBranch(entry, index === entries.length - 1).map((line) => `${rail}${line}`));
}
