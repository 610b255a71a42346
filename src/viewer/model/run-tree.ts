import type { RunSummary } from '../../contracts/store.js';
import { runTree as treeOf, type RunTreeEntry } from '../../audit/run-lineage.js';

/**
 * The viewer's run list with every fork and every delegated child run (`agentTool`) right under
 * its parent (forks of forks, children of children deeper), parents in the store's order (newest
 * first), a parent's forks and children oldest first. A run whose parent is not in the list stands
 * at the top level.
 */
export function runTree(runs: readonly RunSummary[]): readonly RunTreeEntry[] {
  // The run a run sits under: the run that delegated to it, or the one it was forked from.
  return treeOf(runs, (run) => run.parent?.runId ?? run.forkOf?.runId);
}
