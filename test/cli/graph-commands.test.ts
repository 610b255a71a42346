import { describe, expect, it } from 'vitest';
import { sqliteStore } from 'dualloop';
import { parseNdjson, ROOT, runCli } from './cli-process.js';
import { useWorkspace } from './workspace.js';

const workspace = useWorkspace();
const EXAMPLE = `${ROOT}examples/design-review.yaml`;

type Event = Record<string, any>;

/** Each task's [start, end] by event seq. */
function spans(events: readonly Event[]): Map<string, [number, number]> {
  const found = new Map<string, [number, number]>();
  for (const event of events) {
    if (event.type === 'task_start') found.set(event.taskId, [event.seq, Number.POSITIVE_INFINITY]);
    if (event.type === 'task_end') found.get(event.taskId)![1] = event.seq;
  }
  return found;
}

describe('graph commands', () => {
  it('--max-parallel-tasks 1 wins over the manifest: the three reviews run one after the other', async () => {
    const { dir } = workspace();
    const result = await runCli(['run', EXAMPLE, '--max-parallel-tasks', '1'], { cwd: dir });
    expect(result.code).toBe(0);
    const [security, cost, ux] = ['security', 'cost', 'ux'].map((id) => spans(parseNdjson(result.stdout)).get(id)!);
    expect(security![1]).toBeLessThan(cost![0]);
    expect(cost![1]).toBeLessThan(ux![0]);
    expect((await runCli(['run', EXAMPLE, '--max-parallel-tasks', '0'], { cwd: dir })).code).toBe(64);
  });

  it('fork --at <task id> runs that task and what depends on it again, and --at <id>:<turn> from its turn', async () => {
    const { dir } = workspace();
    expect((await runCli(['run', EXAMPLE, '--run-id', 'source'], { cwd: dir })).code).toBe(0);

    const fork = await runCli(['fork', 'source', '--at', 'cost', '--run-id', 'again'], { cwd: dir });
    expect(fork.code).toBe(0);
    expect(fork.stderr).toContain('forked source at cost as again');
    const events = parseNdjson(fork.stdout);
    expect(events[0]).toMatchObject({ type: 'workflow_start', forkOf: { runId: 'source', rerun: ['cost', 'report'] } });
    expect(events.filter((event) => event.type === 'task_start').map((event) => event.taskId)).toEqual(['cost', 'report']);
    expect(events.at(-1)).toMatchObject({ type: 'workflow_end', stop: { reason: 'goal_achieved' } });

    const atTurn = await runCli(['fork', 'source', '--at', 'cost:2', '--run-id', 'turn-2'], { cwd: dir });
    expect(atTurn.code).toBe(0);
    const turns = parseNdjson(atTurn.stdout).filter((event) => event.type === 'turn_start');
    expect(turns.map((event) => [event.taskId, event.turn])).toEqual([
      ['cost', 2],
      ['report', 1],
    ]);

    const unknown = await runCli(['fork', 'source', '--at', 'costs'], { cwd: dir });
    expect(unknown.code).toBe(64);
    expect(unknown.stderr).toContain('cannot fork source at costs: run source has no task costs to fork from; its tasks are 1 (extract), 2 (security), 3 (cost), 4 (ux), 5 (report)');
    const malformed = await runCli(['fork', 'source', '--at', 'cost:0'], { cwd: dir });
    expect(malformed.code).toBe(64);
    expect(malformed.stderr).toContain('--at cost:0: expected <task>[:<turn>]');
  }, 30_000);

  it('steer --task queues a message for one task of a parked graph, and refuses a task the run does not have', async () => {
    const { write, dir, path } = workspace();
    write('cassette.yaml', { draft: [{ text: 'a draft' }], review: [{ text: 'reviewed' }] });
    write('parked.yaml', {
      name: 'parked',
      model: { provider: 'scripted', script: './cassette.yaml' },
      tasks: [
        { id: 'draft', description: 'Draft.' },
        { id: 'review', description: 'Review {{draft.output}}.', dependsOn: ['draft'] },
      ],
      policy: { approveTasks: ['review'] },
    });
    expect((await runCli(['run', 'parked.yaml', '--run-id', 'parked-1'], { cwd: dir })).code).toBe(3);

    const steered = await runCli(['steer', 'parked-1', 'Be brief.', '--task', 'review'], { cwd: dir });
    expect(steered.stderr).toBe('');
    expect(steered.code).toBe(0);
    expect(steered.stdout).toBe('steering message queued for task review of run parked-1\n');
    const unknown = await runCli(['steer', 'parked-1', 'Be brief.', '--task', 'reveiw'], { cwd: dir });
    expect(unknown.code).toBe(64);
    expect(unknown.stderr).toContain('run parked-1 has no task "reveiw" (its tasks: draft, review)');

    const store = sqliteStore({ path: path('.dualloop/runs.db') });
    try {
      expect(await store.takeControls('parked-1')).toEqual([{ kind: 'steer', message: 'Be brief.', taskId: 'review' }]);
    } finally {
      await store.close();
    }
  });
});
