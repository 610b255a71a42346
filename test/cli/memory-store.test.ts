import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseNdjson, ROOT, runCli } from './cli-process.js';
import { useWorkspace } from './workspace.js';

/*
 * `dualloop run --store :memory:` keeps the run in the process's memory (ADR/0408): no file is
 * created, no hint offers a resume or an audit that could not find the run, and every other
 * command refuses `:memory:` naming why.
 */

const workspace = useWorkspace();

describe('run --store :memory:', () => {
  it('runs the workflow without creating a store, and prints no resume or audit hint', async () => {
    const { dir } = workspace();
    const result = await runCli(['run', `${ROOT}examples/expense-report.yaml`, '--store', ':memory:'], { cwd: dir });
    expect(result.code).toBe(0);
    expect(parseNdjson(result.stdout).at(-1)).toMatchObject({ type: 'workflow_end', stop: { reason: 'goal_achieved' } });
    expect(result.stderr).toBe('stop: goal_achieved — all 3 tasks finished\n');
    expect(existsSync(`${dir}/.dualloop`)).toBe(false);
    expect(existsSync(`${dir}/:memory:`)).toBe(false);
  });

  it('says that a run it could have resumed ends with the process', async () => {
    const { dir, write } = workspace();
    write('cassette.yaml', [{ text: 'slow', delayMs: 5_000 }]);
    const manifest = write('manifest.yaml', { name: 'slow', model: { provider: 'scripted', script: './cassette.yaml' }, tasks: ['wait'] });
    const result = await runCli(['run', manifest, '--store', ':memory:', '--max-session-runtime', '200'], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n')).toEqual([
      expect.stringMatching(/^stop: max_session_runtime — /),
      'the run was kept in memory (--store :memory:): it ends with this process and cannot be resumed',
      '',
    ]);
  });

  it.each([
    ['resume', 'run-1'],
    ['audit', 'run-1'],
    ['runs'],
    ['fork', 'run-1', '--at', '1'],
    ['cancel', 'run-1'],
  ])('%s refuses it: the run lived in another process', async (...args) => {
    const { dir } = workspace();
    const result = await runCli([...args, '--store', ':memory:'], { cwd: dir });
    expect(result.stderr).toBe('dualloop: --store :memory: keeps a run only inside the `dualloop run` that started it, so no other command can read it: give the SQLite file or postgres:// URL that holds the run\n');
    expect(result.code).toBe(64);
  });
});
