import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, runCli } from './cli-process.js';
import { useWorkspace } from './workspace.js';

/*
 * The commands a hint prints run where the user is: `dualloop …` when that name on their PATH is
 * this very program, `npx dualloop …` when it is not on PATH, when another program has the name,
 * or when npm started the command (npx, npm exec, npm run: its PATH is npm's, not the shell's).
 */

const workspace = useWorkspace();
const SYSTEM_PATH = '/usr/bin:/bin';

/** A shell's environment: `PATH` as given, nothing set by npm. */
const shell = (path: string, npm?: string) => ({ PATH: path, npm_lifecycle_event: npm, npm_command: undefined, npm_execpath: undefined });

/** A directory on PATH whose `dualloop` links to `target`. */
function pathWithDualloop(dir: string, target: string): string {
  mkdirSync(join(dir, 'bin'));
  symlinkSync(target, join(dir, 'bin', 'dualloop'));
  return `${join(dir, 'bin')}:${SYSTEM_PATH}`;
}

async function hintsOf(env: Record<string, string | undefined>, dir: string) {
  const { write } = workspace();
  write('cassette.yaml', [{ text: 'done' }]);
  const manifest = write('manifest.yaml', { name: 'hints', model: { provider: 'scripted', script: './cassette.yaml' }, tasks: ['answer'] });
  const ran = await runCli(['run', manifest, '--store', 'runs.db', '--run-id', 'hints-1'], { cwd: dir, env });
  expect(ran.code, ran.stderr).toBe(0);
  const init = await runCli(['init', 'starter dir'], { cwd: dir, env });
  expect(init.code, init.stderr).toBe(0);
  return { details: ran.stderr.split('\n').filter((line) => line.startsWith('details: ')), init: init.stdout.split('\n')[1] };
}

describe('hints print a command that runs where the user is', () => {
  it('`dualloop` when that name on PATH is this program (a global install, npm link)', async () => {
    const { dir } = workspace();
    const hints = await hintsOf(shell(pathWithDualloop(dir, CLI)), dir);
    expect(hints).toEqual({ details: ['details: dualloop audit hints-1 --store runs.db'], init: "run it (offline, on the recorded model):  dualloop run 'starter dir/dualloop.yaml'" });
  });

  it('`npx dualloop` when dualloop is not on PATH', async () => {
    const { dir } = workspace();
    const hints = await hintsOf(shell(SYSTEM_PATH), dir);
    expect(hints).toEqual({ details: ['details: npx dualloop audit hints-1 --store runs.db'], init: "run it (offline, on the recorded model):  npx dualloop run 'starter dir/dualloop.yaml'" });
  });

  it('`npx dualloop` when the dualloop on PATH is another program', async () => {
    const { dir } = workspace();
    writeFileSync(join(dir, 'other'), '#!/bin/sh\n', { mode: 0o755 });
    const hints = await hintsOf(shell(pathWithDualloop(dir, join(dir, 'other'))), dir);
    expect(hints.details).toEqual(['details: npx dualloop audit hints-1 --store runs.db']);
  });

  it('`npx dualloop` when npm started the command, even with this program on its PATH', async () => {
    const { dir } = workspace();
    const hints = await hintsOf(shell(pathWithDualloop(dir, CLI), 'npx'), dir);
    expect(hints.details).toEqual(['details: npx dualloop audit hints-1 --store runs.db']);
  });
});
