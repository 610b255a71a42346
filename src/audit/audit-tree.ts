/**
 * `auditTree(store, runId)`: a run's stop tree with the stop trees of the runs its tool calls
 * delegated to (`agentTool`) nested in it, each under the call that started it — what
 * `dualloop audit` prints. `store.audit()` explains one run from its own records; the children are
 * runs of their own, found through the store's run list (run-lineage.ts).
 */
import type { AuditChild, AuditReport, AuditTurn } from '../contracts/audit.js';
import type { CheckpointStore, RunSummary } from '../contracts/store.js';
import { childrenByParent, runsSince } from './run-lineage.js';

export async function auditTree(store: CheckpointStore, runId: string): Promise<AuditReport | undefined> {
  const report = await store.audit(runId);
  if (report === undefined) return undefined;
  const children = childrenByParent(await runsSince(store, report.createdAt));
  return withChildren(store, report, children);
}

async function withChildren(store: CheckpointStore, report: AuditReport, children: ReadonlyMap<string, readonly RunSummary[]>): Promise<AuditReport> {
  const found: AuditChild[] = [];
  for (const child of children.get(report.runId) ?? []) {
    const childReport = await store.audit(child.runId);
    if (childReport === undefined || child.parent === undefined) continue;
    found.push({ runId: child.runId, toolCallId: child.parent.toolCallId, ...callPlace(report, child.parent.toolCallId), report: await withChildren(store, childReport, children) });
  }
  return found.length === 0 ? report : { ...report, children: found };
}

/** Where the audited run's turns have the call: its task, turn and tool. */
function callPlace(report: AuditReport, toolCallId: string): Pick<AuditChild, 'toolName' | 'taskId' | 'taskIndex' | 'turn'> {
  const tasks: readonly { readonly taskId: string; readonly index: number; readonly turns: readonly AuditTurn[] }[] = [
    ...report.tasks,
    ...(report.active === undefined ? [] : [report.active]),
    ...(report.running ?? []),
  ];
  for (const task of tasks) {
    for (const turn of task.turns) {
      const call = turn.toolCalls.find((candidate) => candidate.id === toolCallId);
      if (call !== undefined) return { toolName: call.name, taskId: task.taskId, taskIndex: task.index, turn: turn.turn };
    }
  }
  return {};
}
