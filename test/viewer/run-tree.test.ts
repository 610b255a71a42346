import { describe, expect, it } from 'vitest';
import type { RunSummary } from 'dualloop';
import { runTree } from '../../src/viewer/model/run-tree.js';

const run = (runId: string, forkOf?: string): RunSummary => ({
  runId,
  createdAt: 0,
  tasksDone: 0,
  tasksTotal: 1,
  ...(forkOf === undefined ? {} : { forkOf: { runId: forkOf, at: { task: 1, turn: 2 } } }),
});

describe('the viewer’s run list', () => {
  it('puts every fork under its parent, forks of forks deeper, oldest fork first', () => {
    // Newest first, as the store lists them.
    const runs = [run('fork-b', 'source'), run('other'), run('fork-of-a', 'fork-a'), run('fork-a', 'source'), run('source')];
    expect(runTree(runs).map((entry) => [entry.run.runId, entry.depth])).toEqual([
      ['other', 0],
      ['source', 0],
      ['fork-a', 1],
      ['fork-of-a', 2],
      ['fork-b', 1],
    ]);
  });

  it('puts every delegated child run under the run that started it, a child’s children deeper, beside forks', () => {
    const child = (runId: string, parent: string): RunSummary => ({ ...run(runId), parent: { runId: parent, toolCallId: 'call-1' } });
    const runs = [child('writer.t0.2.0', 'writer'), run('fork', 'writer'), child('writer.t0.1.0.t0.1.0', 'writer.t0.1.0'), child('writer.t0.1.0', 'writer'), run('writer')];
    expect(runTree(runs).map((entry) => [entry.run.runId, entry.depth])).toEqual([
      ['writer', 0],
      ['writer.t0.1.0', 1],
      ['writer.t0.1.0.t0.1.0', 2],
      ['fork', 1],
      ['writer.t0.2.0', 1],
    ]);
  });

  it('lists a fork whose parent is not listed at the top level, and every run once', () => {
    const runs = [run('orphan', 'gone'), run('a', 'b'), run('b', 'a')];
    const tree = runTree(runs);
    expect(tree.map((entry) => entry.run.runId).sort()).toEqual(['a', 'b', 'orphan']);
    expect(tree[0]).toEqual({ run: runs[0], depth: 0 });
  });
});
