/**
 * Runs with the runs below them — the child runs their tool calls delegated to (`agentTool`, a
 * record's `parent`), or for the viewer also their forks — read through `listRuns` alone. A child
 * is created after its parent, so the runs listed newest first down to a run's creation hold every
 * run below it: the list is read in growing pages only as far as that. Used by `dualloop runs`,
 * `auditTree` (audit-tree.ts) and the viewer's run list. Pure but for the store reads.
 */
import type { CheckpointStore, RunSummary } from '../contracts/store.js';

/** A run of a list, with how deep it sits under the run it is below. */
export interface RunTreeEntry {
  readonly run: RunSummary;
  /** 0 for a run at the top level; 1 for the runs right under it, and so on. */
  readonly depth: number;
}

/** The run a run sits under, if any. */
export type ParentOf = (run: RunSummary) => string | undefined;

/** Under the run that delegated to it (`agentTool`). */
export const delegatedBy: ParentOf = (run) => run.parent?.runId;

/** Each listed run's runs right under it, oldest first, from a newest-first list; a run whose parent is not listed, or is itself, is under none. */
export function childrenByParent(runs: readonly RunSummary[], parentOf: ParentOf = delegatedBy): ReadonlyMap<string, readonly RunSummary[]> {
  const listed = new Set(runs.map((run) => run.runId));
  const children = new Map<string, RunSummary[]>();
  for (const run of runs) {
    const parent = parentOf(run);
    if (parent === undefined || !listed.has(parent) || parent === run.runId) continue;
    const siblings = children.get(parent) ?? [];
    siblings.unshift(run);
    children.set(parent, siblings);
  }
  return children;
}

/**
 * A newest-first list with every run right under its parent (children of children deeper), parents
 * in the list's order, a parent's children oldest first. A run whose parent is not in the list
 * stands at the top level; every run is listed once, even in a cycle of parents (impossible from
 * the kernel, possible in a store edited by hand).
 */
export function runTree(runs: readonly RunSummary[], parentOf: ParentOf = delegatedBy): readonly RunTreeEntry[] {
  const children = childrenByParent(runs, parentOf);
  const below = new Set([...children.values()].flat().map((run) => run.runId));
  const tree: RunTreeEntry[] = [];
  const placed = new Set<string>();
  const place = (run: RunSummary, depth: number) => {
    if (placed.has(run.runId)) return;
    placed.add(run.runId);
    tree.push({ run, depth });
    for (const child of children.get(run.runId) ?? []) place(child, depth + 1);
  };
  for (const run of runs) if (!below.has(run.runId)) place(run, 0);
  for (const run of runs) place(run, 0);
  return tree;
}

const FIRST_PAGE = 64;

/** Reads newest-first pages, each twice as long, until `enough` says the runs read suffice or the store has no more. */
async function listUntil(store: CheckpointStore, enough: (runs: readonly RunSummary[]) => boolean): Promise<readonly RunSummary[]> {
  for (let limit = FIRST_PAGE; ; limit *= 2) {
    const runs = await store.listRuns({ limit });
    if (runs.length < limit || enough(runs)) return runs;
  }
}

/** Every run created at or after `createdAt`, newest first (and perhaps some older ones). */
export function runsSince(store: CheckpointStore, createdAt: number): Promise<readonly RunSummary[]> {
  return listUntil(store, (runs) => runs.at(-1)!.createdAt < createdAt);
}

/**
 * The newest `limit` runs no run delegated to, newest first, each followed by the runs below it
 * (depth first, in the order they started). A delegated run whose parent is older than those is
 * left out with its parent: a larger `limit` lists them together.
 */
export async function recentRunFamilies(store: CheckpointStore, limit: number): Promise<readonly RunTreeEntry[]> {
  const topLevel = (run: RunSummary) => run.parent === undefined;
  const runs = await listUntil(store, (listed) => listed.filter(topLevel).length >= limit);
  const families: RunTreeEntry[] = [];
  let roots = 0;
  let keep = false;
  for (const entry of runTree(runs)) {
    if (entry.depth === 0) {
      keep = topLevel(entry.run) && roots < limit;
      if (keep) roots += 1;
    }
    if (keep) families.push(entry);
  }
  return families;
}
