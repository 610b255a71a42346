import { describe, expect, it } from 'vitest';
import { ROOT, runCli } from './cli-process.js';
import { useWorkspace } from './workspace.js';

const workspace = useWorkspace();

describe('dualloop runs and audit', () => {
  it('lists runs from earlier processes with their stop reasons, newest first', async () => {
    const { dir } = workspace();
    expect((await runCli(['run', `${ROOT}examples/expense-report.yaml`, '--run-id', 'first-run'], { cwd: dir })).code).toBe(0);
    expect((await runCli(['run', `${ROOT}examples/runaway.yaml`, '--run-id', 'second-run'], { cwd: dir })).code).toBe(2);

    const json = await runCli(['runs', '--json'], { cwd: dir });
    expect(json.code).toBe(0);
    const runs = JSON.parse(json.stdout);
    expect(runs).toEqual([
      expect.objectContaining({ runId: 'second-run', name: 'runaway-calculator', stop: expect.objectContaining({ reason: 'max_turns' }), tasksDone: 1, tasksTotal: 1 }),
      expect.objectContaining({ runId: 'first-run', name: 'expense-report', stop: expect.objectContaining({ reason: 'goal_achieved' }), tasksDone: 3, tasksTotal: 3 }),
    ]);

    const table = await runCli(['runs'], { cwd: dir });
    const lines = table.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^RUN\s+NAME\s+STARTED\s+STOP\s+TASKS$/);
    expect(lines[1]).toMatch(/^second-run\s+runaway-calculator\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\s+max_turns\s+1\/1$/);
    expect(lines[2]).toMatch(/^first-run\s+expense-report\s+\S+ \S+\s+goal_achieved\s+3\/3$/);
  });

  it('explains a stop: the bound that fired with its configured value, readable and as JSON', async () => {
    const { dir } = workspace();
    await runCli(['run', `${ROOT}examples/runaway.yaml`, '--run-id', 'runaway-1'], { cwd: dir });

    const json = await runCli(['audit', 'runaway-1', '--json'], { cwd: dir });
    expect(json.code).toBe(0);
    const report = JSON.parse(json.stdout);
    expect(report).toMatchObject({
      runId: 'runaway-1',
      status: 'finished',
      workflow: { stop: { reason: 'max_turns' }, bound: { name: 'maxTurns', limit: 5, value: 5 } },
      tasks: [{ taskId: 'task-1', stop: { reason: 'max_turns' }, counters: { turns: 5, toolCalls: 5 }, bound: { name: 'maxTurns', limit: 5 } }],
    });
    expect(report.tasks[0].turns).toHaveLength(5);

    const text = await runCli(['audit', 'runaway-1'], { cwd: dir });
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('workflow  max_turns — task "task-1" stopped: turn 5 reached maxTurns=5  [maxTurns 5/5]');
    expect(text.stdout).toContain('└─ ■ task 1 task-1  max_turns');
    // wrapUpOnBound: the wrap-up call follows the last turn.
    expect(text.stdout).toMatch(/├─ turn 5 {2}calculator {2}max_turns/);
  });

  it('exits 64 for an unknown run or a missing store, naming the store; runs on a missing store lists nothing', async () => {
    const { dir } = workspace();
    const noStore = await runCli(['audit', 'nope'], { cwd: dir });
    expect(noStore).toMatchObject({ code: 64, stdout: '' });
    expect(noStore.stderr).toContain('no store at .dualloop/runs.db');
    expect(await runCli(['runs', '--json'], { cwd: dir })).toMatchObject({ code: 0, stdout: '[]\n' });
    await runCli(['run', `${ROOT}examples/runaway.yaml`], { cwd: dir });
    const unknown = await runCli(['audit', 'nope'], { cwd: dir });
    expect(unknown).toMatchObject({ code: 64, stdout: '' });
    expect(unknown.stderr).toContain('no run nope in .dualloop/runs.db');
    // resume and fork say the run is not there before asking for a manifest it would not need.
    for (const command of [['resume', 'nope'], ['fork', 'nope', '--at', '1'], ['resume', 'nope', '--manifest', 'none.yaml']]) {
      const refused = await runCli(command, { cwd: dir });
      expect(refused).toMatchObject({ code: 64, stdout: '', stderr: 'dualloop: no run nope in .dualloop/runs.db\n' });
    }
  });
});
