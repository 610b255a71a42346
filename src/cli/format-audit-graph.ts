import type { AuditActiveTask, AuditGraphTask, AuditReport, AuditTask } from '../contracts/audit.js';
import { plural, type Colors } from './format.js';
import { endedTaskBlock, type TaskBlock } from './format-audit-task.js';

/** What a run without a result was doing at its latest checkpoint: a resume continues it. */
export const IN_PROGRESS = 'in progress at the last checkpoint (resumable)';

/**
 * A graph run's tasks for people, in task order: each with the tasks it waits for
 * (`← after a, b`) and its stop, or that it is in progress or has not started; a fan-out task's
 * items under it. In a graph fork, the tasks taken from the source run say so.
 */
export function graphBlocks(report: AuditReport, graph: readonly AuditGraphTask[], colors: Colors): TaskBlock[] {
  const ended = new Map(report.tasks.map((task) => [task.taskId, task]));
  const running = new Map((report.running ?? []).map((task) => [task.taskId, task]));
  const rerun = report.forkOf?.rerun === undefined ? undefined : new Set(report.forkOf.rerun);
  return graph.map((node) => {
    const after = node.dependsOn.length === 0 ? '' : `  ${colors.dim(`← after ${node.dependsOn.join(', ')}`)}`;
    const children = (node.items ?? []).map((id) => itemBlock(id, ended.get(id), running.get(id), colors));
    const task = ended.get(node.taskId);
    if (task !== undefined) {
      const block = endedTaskBlock(task, colors, `task ${node.index + 1} `, after);
      const kept = rerun !== undefined && !rerun.has(node.taskId) ? `  ${colors.dim(`(the result of ${report.forkOf!.runId})`)}` : '';
      return { ...block, head: `${block.head}${kept}`, children };
    }
    const label = `task ${node.index + 1} ${colors.bold(node.taskId)}${after}`;
    const active = running.get(node.taskId);
    if (active !== undefined) return { head: `… ${label}  ${colors.dim(IN_PROGRESS)}`, description: active.description, body: active, children };
    if (children.length > 0) return { head: `… ${label}  ${colors.dim(`fanned out: ${plural(children.length, 'item')} so far, no stop yet`)}`, description: node.description, children };
    // A run without a result is audited from its latest checkpoint: a task may have started since.
    return { head: `· ${label}  ${colors.dim(report.status === 'incomplete' ? 'not started at the last checkpoint' : 'not started')}`, description: node.description };
  });
}

function itemBlock(id: string, ended: AuditTask | undefined, running: AuditActiveTask | undefined, colors: Colors): TaskBlock {
  if (ended !== undefined) return endedTaskBlock(ended, colors, 'item ');
  return { head: `… item ${colors.bold(id)}  ${colors.dim(IN_PROGRESS)}`, description: running?.description ?? '', ...(running === undefined ? {} : { body: running }) };
}
