import { describe, expect, it } from 'vitest';
import { sqliteStore } from 'dualloop';
import { parseNdjson, ROOT, runCli } from '../cli/cli-process.js';
import { useWorkspace } from '../cli/workspace.js';

/**
 * examples/design-review.yaml, the graph of docs/workflows.md, run offline as a user would:
 * `dualloop run`, its cassette answering by task.
 */

const workspace = useWorkspace();

describe('examples/design-review.yaml', () => {
  it('runs the extraction, the three reviews at once and the typed report: goal_achieved, exit 0', async () => {
    const { dir, path } = workspace();
    const result = await runCli(['run', `${ROOT}examples/design-review.yaml`, '--run-id', 'review-1'], { cwd: dir });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('stop: goal_achieved — all 5 tasks finished');
    const events = parseNdjson(result.stdout);
    const seqOf = (type: string, taskId: string) => events.find((event) => event.type === type && event.taskId === taskId)!.seq as number;
    // Each review starts after the extraction ended and before any other review ended: they ran at once.
    const reviews = ['security', 'cost', 'ux'];
    for (const id of reviews) {
      expect(seqOf('task_start', id)).toBeGreaterThan(seqOf('task_end', 'extract'));
      expect(seqOf('task_start', id)).toBeLessThan(Math.min(...reviews.map((other) => seqOf('task_end', other))));
      expect(seqOf('task_start', 'report')).toBeGreaterThan(seqOf('task_end', id));
    }
    // cost's first answer lacked "risks": it went back to the model once.
    expect(events.filter((event) => event.type === 'output_invalid').map((event) => [event.taskId, event.outcome])).toEqual([['cost', 'repair']]);
    expect(events.find((event) => event.type === 'task_start' && event.taskId === 'report')?.description).toContain('Usability: Nightly exports leave users waiting a day for fresh data.');

    const store = sqliteStore({ path: path('.dualloop/runs.db') });
    try {
      const stored = await store.loadResult('review-1');
      const output = (id: string) => stored?.tasks.find((task) => task.taskId === id)?.output;
      expect(output('extract')).toEqual({ sections: ['Auth', 'Billing', 'Exports'] });
      expect(output('cost')).toEqual({ summary: 'Per-gigabyte billing follows the provider meter.', risks: [] });
      expect(output('report')).toEqual({ verdict: 'revise', risks: 2 });
    } finally {
      await store.close();
    }
  });
});
