import { describe, expect, it } from 'vitest';
import { parseNdjson, runCli, startCli, waitForLine } from './cli-process.js';
import { useWorkspace } from './workspace.js';

const workspace = useWorkspace();

/** Three tasks; the second one's first model call waits, so Ctrl-C lands while it is in flight. */
function threeTasks(): string {
  const { write } = workspace();
  write('cassette.yaml', [
    { toolCalls: [{ name: 'calculator', args: { expression: '2 + 3' } }], usage: { inputTokens: 10, outputTokens: 5 } },
    { text: 'five', usage: { inputTokens: 12, outputTokens: 2 } },
    { text: 'seven', usage: { inputTokens: 14, outputTokens: 2 }, delayMs: 1_500 },
    { toolCalls: [{ name: 'calculator', args: { expression: '5 * 7' } }], usage: { inputTokens: 16, outputTokens: 5 } },
    { text: 'thirty-five', usage: { inputTokens: 18, outputTokens: 3 } },
  ]);
  return write('manifest.yaml', {
    name: 'three-sums',
    model: { provider: 'scripted', script: './cassette.yaml' },
    tools: { builtin: ['calculator'] },
    tasks: [
      { id: 'first', description: 'Add 2 and 3.' },
      { id: 'second', description: 'Add 2 to the previous result.' },
      { id: 'third', description: 'Multiply by 7.' },
    ],
  });
}

describe('Ctrl-C and resume', () => {
  it('aborts cleanly on SIGINT (exit 130, checkpoint kept); resume finishes the run without redoing the first task', async () => {
    const manifest = threeTasks();
    const { dir } = workspace();
    const child = startCli(['run', manifest, '--store', 'runs.db', '--run-id', 'interrupted-1'], { cwd: dir });
    await waitForLine(child, (line) => line.includes('"type":"task_end"'));
    child.kill('SIGINT');
    const interrupted = await child.done;
    expect(interrupted.code).toBe(130);
    const before = parseNdjson(interrupted.stdout);
    expect(before.at(-1)).toMatchObject({ type: 'workflow_end', stop: { reason: 'context_canceled', detail: 'interrupted by SIGINT' } });
    expect(interrupted.stderr).toMatch(/^continue it with: (npx )?dualloop resume interrupted-1 --store runs\.db$/m);

    const resumed = await runCli(['resume', 'interrupted-1', '--store', 'runs.db'], { cwd: dir });
    expect(resumed.code).toBe(0);
    const after = parseNdjson(resumed.stdout);
    expect(after[0]).toMatchObject({ type: 'workflow_start', resumed: true });
    expect(after[0]!.seq).toBeGreaterThan(before.at(-1)!.seq);
    expect(after.filter((event) => event.type === 'task_start').map((event) => event.taskId)).not.toContain('first');
    expect(after.at(-1)).toMatchObject({ type: 'workflow_end', stop: { reason: 'goal_achieved' }, metrics: { workflowSteps: 3 } });

    const audit = await runCli(['audit', 'interrupted-1', '--store', 'runs.db', '--json'], { cwd: dir });
    expect(audit.code).toBe(0);
    const report = JSON.parse(audit.stdout);
    expect(report).toMatchObject({ runId: 'interrupted-1', name: 'three-sums', status: 'finished', workflow: { stop: { reason: 'goal_achieved' } } });
    expect(report.tasks.map((task: { taskId: string; stop: { reason: string } }) => [task.taskId, task.stop.reason])).toEqual([
      ['first', 'planner_stopped'],
      ['second', 'planner_stopped'],
      ['third', 'planner_stopped'],
    ]);
    // Every model call of the uninterrupted script was counted once: the first task's tokens were not spent again.
    expect(report.workflow.metrics).toMatchObject({ turns: 5, toolCalls: 2, inputTokens: 70, outputTokens: 17 });
  });

});
