import { describe, expect, it } from 'vitest';
import { parseNdjson, runCli } from './cli-process.js';
import { useWorkspace } from './workspace.js';

const workspace = useWorkspace();

describe('dualloop resume after a deploy changed the workflow', () => {
  it('refuses with each change (exit 64), and goes on with --accept-workflow-change, recording it', async () => {
    const { write, dir } = workspace();
    write('cassette.yaml', [{ text: 'first answer' }, { text: 'second answer' }]);
    write('flow.yaml', {
      name: 'flow',
      model: { provider: 'scripted', script: './cassette.yaml' },
      system: 'You are careful.',
      tasks: [{ id: 'a', description: 'Task a.' }, { id: 'b', description: 'Task b.' }],
      policy: { approveTasks: ['b'] },
    });
    expect((await runCli(['run', 'flow.yaml', '--run-id', 'deployed'], { cwd: dir })).code).toBe(3);
    // The deploy: another system prompt and another cassette.
    write('cassette.yaml', [{ text: 'first answer' }, { text: 'a better second answer' }]);
    write('flow.yaml', {
      name: 'flow',
      model: { provider: 'scripted', script: './cassette.yaml' },
      system: 'You are very careful.',
      tasks: [{ id: 'a', description: 'Task a.' }, { id: 'b', description: 'Task b.' }],
      policy: { approveTasks: ['b'] },
    });
    const refused = await runCli(['resume', 'deployed', '--approve', 'task:b'], { cwd: dir });
    expect(refused.code).toBe(64);
    expect(refused.stderr).toContain('system prompt changed');
    expect(refused.stderr).toContain('cassette changed');
    expect(refused.stderr).toContain('--accept-workflow-change');

    const accepted = await runCli(['resume', 'deployed', '--approve', 'task:b', '--accept-workflow-change', '--json'], { cwd: dir });
    expect(accepted.code, accepted.stderr).toBe(0);
    expect(parseNdjson(accepted.stdout).find((event) => event.type === 'workflow_changed')).toMatchObject({ changes: ['system prompt changed', 'cassette changed'] });
    const audit = await runCli(['audit', 'deployed'], { cwd: dir });
    expect(audit.stdout).toContain('workflow changed, accepted by');
  });
});
