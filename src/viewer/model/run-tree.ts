import type { RunSummary } from '../../contracts/store.js';

/** A run of the viewer's run list, with how deep it sits under the run it was forked from or delegated by. */
export interface RunTreeEntry {
  readonly run: RunSummary;
  readonly depth: number;
}

/**
 * The run list with every fork and every delegated child run (`agentTool`) right under its parent
 * (forks of forks, children of children deeper), parents in the store's order (newest first), a
 * parent's forks and children oldest first. A run whose parent is not in the list stands at the top level.
 */
export function runTree(runs: readonly RunSummary[]): readonly RunTreeEntry[] {
  const listed = new Set(runs.map((run) => run.runId));
  const children = new Map<string, RunSummary[]>();
  for (const run of runs) {
    const parent = parentOf(run);
    if (parent === undefined || !listed.has(parent) || parent === run.runId) continue;
    const list = children.get(parent) ?? [];
    list.unshift(run);
    children.set(parent, list);
  }
  const tree: RunTreeEntry[] = [];
  const placed = new Set<string>();
  const place = (run: RunSummary, depth: number) => {
    if (placed.has(run.runId)) return;
    placed.add(run.runId);
    tree.push({ run, depth });
    for (const child of children.get(run.runId) ?? []) place(child, depth + 1);
  };
  for (const run of runs) {
    const parent = parentOf(run);
    if (parent === undefined || !listed.has(parent) || parent === run.runId) place(run, 0);
  }
  // A cycle of parents (impossible from the kernel, possible in a hand-edited store) is still listed.
  for (const run of runs) place(run, 0);
  return tree;
}

/** The run a run sits under: the run that delegated to it, or the one it was forked from. */
function parentOf(run: RunSummary): string | undefined {
  return run.parent?.runId ?? run.forkOf?.runId;
}
