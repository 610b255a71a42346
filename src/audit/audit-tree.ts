/**
 * `auditTree(store, runId)`: a run's stop tree with the stop trees of the runs its tool calls
 * delegated to (`agentTool`) nested in it, each under the call that started it — what
 * `dualloop audit` prints. `store.audit()` explains one run from its own records; the children are
 * runs of their own, found through the store's run list (run-lineage.ts).
 */
import type { AuditChild, AuditReport, AuditTurn } from '../contracts/audit.js';
import type { CheckpointStore, RunSummary } from '../contracts/store.js';
import { childRunIdAt } from '../contracts/child-run-id.js';
import { childrenByParent, runsSince } from './run-lineage.js';

export async function auditTree(store: CheckpointStore, runId: string): Promise<AuditReport | undefined> {
  const report = await store.audit(runId);
  if (report === undefined) return undefined;
  const children = childrenByParent(await runsSince(store, report.createdAt));
  return withChildren(store, report, children, new Set([runId]));
}

/** `seen`: the runs already in the tree, so that a store edited by hand into a cycle of parents still ends. */
async function withChildren(store: CheckpointStore, report: AuditReport, children: ReadonlyMap<string, readonly RunSummary[]>, seen: Set<string>): Promise<AuditReport> {
  const found: AuditChild[] = [];
  for (const child of children.get(report.runId) ?? []) {
    if (seen.has(child.runId) || child.parent === undefined) continue;
    seen.add(child.runId);
    const childReport = await store.audit(child.runId);
    if (childReport === undefined) continue;
    const { toolCallId } = child.parent;
    found.push({ runId: child.runId, toolCallId, ...callPlace(report, child, toolCallId), report: await withChildren(store, childReport, children, seen) });
  }
  return found.length === 0 ? report : { ...report, children: found };
}

/**
 * Where the audited run's recorded turns have the call: its task, turn and tool. A model may reuse
 * a call id on a later turn, so the call at the child's place (its id: src/kernel/delegation.ts)
 * is preferred; the first call with the id otherwise.
 */
function callPlace(report: AuditReport, child: RunSummary, toolCallId: string): Pick<AuditChild, 'toolName' | 'taskId' | 'taskIndex' | 'turn'> {
  const tasks: readonly { readonly taskId: string; readonly index: number; readonly turns: readonly AuditTurn[] }[] = [
    ...report.tasks,
    ...(report.active === undefined ? [] : [report.active]),
    ...(report.running ?? []),
  ];
  let exact: Pick<AuditChild, 'toolName' | 'taskId' | 'taskIndex' | 'turn'> | undefined;
  let first: typeof exact;
  for (const task of tasks) {
    const item = /\[(\d+)\]$/.exec(task.taskId)?.[1];
    for (const turn of task.turns) {
      turn.toolCalls.forEach((call, position) => {
        if (call.id !== toolCallId) return;
        const place = { toolName: call.name, taskId: task.taskId, taskIndex: task.index, turn: turn.turn };
        const at = { taskIndex: task.index, item: item === undefined ? undefined : Number(item), turn: turn.turn, position };
        if (childRunIdAt(report.runId, at) === child.runId) exact = place;
        first ??= place;
      });
    }
  }
  return exact ?? first ?? {};
}
