/**
 * Runs with the runs they delegated to (`agentTool`, a record's `parent`), read through
 * `listRuns` alone. A child is created after its parent, so the runs listed down to a run's
 * creation hold every run below it: the list is read newest first, in growing pages, only as far
 * as that. Used by `dualloop runs` (children under their parent) and `auditTree`.
 */
import type { CheckpointStore, RunSummary } from '../contracts/store.js';

const FIRST_PAGE = 64;

/** Reads newest-first pages, each twice as long, until `enough` says the runs read suffice or the store has no more. */
async function listUntil(store: CheckpointStore, enough: (runs: readonly RunSummary[]) => boolean): Promise<readonly RunSummary[]> {
  for (let limit = FIRST_PAGE; ; limit *= 2) {
    const runs = await store.listRuns({ limit });
    if (runs.length < limit || enough(runs)) return runs;
  }
}

/** Every run created at or after `createdAt`, newest first. */
export function runsSince(store: CheckpointStore, createdAt: number): Promise<readonly RunSummary[]> {
  return listUntil(store, (runs) => runs.at(-1)!.createdAt < createdAt);
}

/** Each run's children (the runs whose `parent` it is), in the order they were created. */
export function childrenByParent(runs: readonly RunSummary[]): ReadonlyMap<string, readonly RunSummary[]> {
  const children = new Map<string, RunSummary[]>();
  // Newest first in, oldest first out.
  for (const run of [...runs].reverse()) {
    if (run.parent === undefined) continue;
    const siblings = children.get(run.parent.runId) ?? [];
    siblings.push(run);
    children.set(run.parent.runId, siblings);
  }
  return children;
}

export interface RunInFamily {
  readonly run: RunSummary;
  /** 0 for a run no other run started; 1 for its children, and so on. */
  readonly depth: number;
}

/** The newest `limit` runs that no run delegated to, newest first, each followed by the runs below it (depth first, in the order they started). */
export async function recentRunFamilies(store: CheckpointStore, limit: number): Promise<readonly RunInFamily[]> {
  const runs = await listUntil(store, (listed) => listed.filter((run) => run.parent === undefined).length >= limit);
  const children = childrenByParent(runs);
  const family: RunInFamily[] = [];
  const add = (run: RunSummary, depth: number) => {
    family.push({ run, depth });
    for (const child of children.get(run.runId) ?? []) add(child, depth + 1);
  };
  for (const root of runs.filter((run) => run.parent === undefined).slice(0, limit)) add(root, 0);
  return family;
}

/** The run no run delegated to that `runId` is below (itself when it is one), through the records' `parent`. */
export async function rootRunId(store: CheckpointStore, runId: string): Promise<string> {
  let current = runId;
  // A parent is created before its child: the chain ends; the bound only guards a damaged store.
  for (let step = 0; step < 1000; step += 1) {
    const parent = (await store.getRun(current))?.parent;
    if (parent === undefined) return current;
    current = parent.runId;
  }
  return current;
}
