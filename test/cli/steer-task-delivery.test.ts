import { describe, expect, it } from 'vitest';
import { parseNdjson, runCli } from './cli-process.js';
import { useWorkspace } from './workspace.js';

const workspace = useWorkspace();

describe('dualloop steer --task', () => {
  it('reaches the named task alone when the resumed graph starts several at once', async () => {
    const { write, dir } = workspace();
    write('cassette.yaml', { a: [{ text: 'a done', delayMs: 50 }], b: [{ text: 'b done', delayMs: 50 }] });
    write('parked.yaml', {
      name: 'parked',
      model: { provider: 'scripted', script: './cassette.yaml' },
      tasks: [
        { id: 'a', description: 'Task a.', dependsOn: [] },
        { id: 'b', description: 'Task b.', dependsOn: [] },
      ],
      policy: { approveTasks: ['a', 'b'] },
      bounds: { outer: { maxParallelTasks: 2 } },
    });
    expect((await runCli(['run', 'parked.yaml', '--run-id', 'two'], { cwd: dir })).code).toBe(3);
    expect((await runCli(['steer', 'two', 'Only for b.', '--task', 'b'], { cwd: dir })).code).toBe(0);
    const resumed = await runCli(['resume', 'two', '--approve', 'task:a', 'task:b', '--json'], { cwd: dir });
    expect(resumed.code).toBe(0);
    const queued = parseNdjson(resumed.stdout).filter((event) => event.type === 'message_queued');
    expect(queued).toEqual([expect.objectContaining({ queue: 'steering', content: 'Only for b.', taskId: 'b' })]);
  });
});
