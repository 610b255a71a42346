import { describe, expect, it } from 'vitest';
import { request } from 'node:http';
import { ROOT, runCli, startCli, waitForLine } from './cli-process.js';
import { useWorkspace } from './workspace.js';

const workspace = useWorkspace();

describe('dualloop fork', () => {
  it('forks a run at a task, shows lineage in runs and the parent in audit', async () => {
    const { dir } = workspace();
    expect((await runCli(['run', `${ROOT}examples/expense-report.yaml`, '--run-id', 'source'], { cwd: dir })).code).toBe(0);

    const fork = await runCli(['fork', 'source', '--at', '2', '--run-id', 'fork-1'], { cwd: dir });
    expect(fork.code).toBe(0);
    const events = fork.stdout.trim().split('\n').map((line) => JSON.parse(line) as { type: string; forkOf?: unknown; taskIndex?: number });
    expect(events[0]).toMatchObject({ type: 'workflow_start', resumed: false, forkOf: { runId: 'source', at: { task: 2 } } });
    // Task 1 is the record's: the fork starts at task 2.
    expect(events.filter((event) => event.type === 'task_start').map((event) => event.taskIndex)).toEqual([1, 2]);
    expect(fork.stderr).toContain('forked source at 2 as fork-1');

    const runs = await runCli(['runs'], { cwd: dir });
    expect(runs.stdout).toMatch(/^fork-1\s+expense-report\s+\S+ \S+\s+goal_achieved\s+3\/3\s+forked from source at 2$/m);
    expect(runs.stdout).toMatch(/^source\s+expense-report\s+\S+ \S+\s+goal_achieved\s+3\/3$/m);

    const audit = await runCli(['audit', 'fork-1'], { cwd: dir });
    expect(audit.stdout).toContain('forked from source at 2  (before task 2)');
    expect(audit.stdout).toContain('task 1 total');
    expect(JSON.parse((await runCli(['audit', 'fork-1', '--json'], { cwd: dir })).stdout)).toMatchObject({ forkOf: { runId: 'source', at: { task: 2 } } });
  });

  it('exits like run: a lower --max-turns at a turn point ends the fork max_turns (2); a fork of the fork works', async () => {
    const { dir } = workspace();
    await runCli(['run', `${ROOT}examples/expense-report.yaml`, '--run-id', 'source'], { cwd: dir });
    const bounded = await runCli(['fork', 'source', '--at', '1:2', '--max-turns', '2', '--message', 'be quick', '--run-id', 'bounded', '--json'], { cwd: dir });
    expect(bounded.code).toBe(2);
    const end = bounded.stdout.trim().split('\n').map((line) => JSON.parse(line) as { type: string; stop?: { reason: string }; metrics?: { turns: number } }).at(-1);
    expect(end).toMatchObject({ type: 'workflow_end', stop: { reason: 'max_turns' }, metrics: { turns: 2 } });

    const again = await runCli(['fork', 'bounded', '--at', '1:2', '--run-id', 'again', '--max-turns', '6'], { cwd: dir });
    expect(again.code).toBe(0);
    expect((await runCli(['audit', 'again'], { cwd: dir })).stdout).toContain('forked from bounded at 1:2  (before turn 2 of task 1)');
  });

  it('exits 64 for a point that does not exist (listing the valid ones), a bad --at and an unknown run', async () => {
    const { dir } = workspace();
    await runCli(['run', `${ROOT}examples/expense-report.yaml`, '--run-id', 'source'], { cwd: dir });
    const missing = await runCli(['fork', 'source', '--at', '9'], { cwd: dir });
    expect(missing.code).toBe(64);
    expect(missing.stderr).toContain('its points are task 1 (turns 1–3), task 2 (turns 1–3), task 3 (turns 1–2)');
    expect((await runCli(['fork', 'source', '--at', 'two'], { cwd: dir })).code).toBe(64);
    expect((await runCli(['fork', 'source'], { cwd: dir })).code).toBe(64);
    const unknown = await runCli(['fork', 'nope', '--at', '1'], { cwd: dir });
    expect(unknown.code).toBe(64);
    expect(unknown.stderr).toContain('no run nope');
    expect(JSON.parse((await runCli(['runs', '--json'], { cwd: dir })).stdout)).toHaveLength(1);
  });

  it('view --control forks from the page’s request, rebuilt from the source’s manifest', async () => {
    const { dir } = workspace();
    await runCli(['run', `${ROOT}examples/expense-report.yaml`, '--run-id', 'source'], { cwd: dir });
    const viewing = startCli(['view', 'source', '--control'], { cwd: dir });
    try {
      const url = new URL((await waitForLine(viewing, (line) => line.startsWith('viewer: '))).slice('viewer: '.length));
      expect(((await (await fetch(`${url.origin}/api/runs`)).json()) as { control: boolean }).control).toBe(true);
      const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const sent = request({ host: url.hostname, port: url.port, path: '/api/runs/source/fork', method: 'POST', headers: { origin: url.origin, 'content-type': 'application/json' } }, (response) => {
          let body = '';
          response.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
        });
        sent.on('error', reject);
        sent.end(JSON.stringify({ at: { task: 3, turn: 2 } }));
      });
      expect(answer.status).toBe(200);
      const { runId } = JSON.parse(answer.body) as { runId: string };
      // The fork runs in the viewer's process; the store tells when it ended.
      let ended: { stop?: { reason: string }; forkOf?: unknown } | undefined;
      while (ended?.stop === undefined) {
        const runs = ((await (await fetch(`${url.origin}/api/runs`)).json()) as { runs: { runId: string; stop?: { reason: string }; forkOf?: unknown }[] }).runs;
        ended = runs.find((run) => run.runId === runId);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(ended).toMatchObject({ stop: { reason: 'goal_achieved' }, forkOf: { runId: 'source', at: { task: 3, turn: 2 } } });
    } finally {
      viewing.kill('SIGINT');
      await viewing.done;
    }
    // Three processes, one after the other, on a machine the whole suite shares.
  }, 60_000);
});
