import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from './cli-process.js';
import { useWorkspace } from './workspace.js';

/*
 * The command turns on Node's module compile cache before it loads anything else (ADR/0392): with
 * no NODE_COMPILE_CACHE set, Node keeps it under the OS temp directory, which the test points at
 * the workspace.
 */
const workspace = useWorkspace();

function runWithTemp(extra: Record<string, string | undefined>) {
  const temp = join(workspace().dir, 'tmp');
  mkdirSync(temp, { recursive: true });
  const env = { TMPDIR: temp, TEMP: temp, TMP: temp, NODE_COMPILE_CACHE: undefined, NODE_DISABLE_COMPILE_CACHE: undefined, ...extra };
  return { temp, done: runCli(['--version'], { cwd: workspace().dir, env }) };
}

const cached = (temp: string) => (existsSync(join(temp, 'node-compile-cache')) ? readdirSync(join(temp, 'node-compile-cache'), { recursive: true }) : []);

describe('dualloop and the compile cache', () => {
  it('keeps compiled code in the OS temp directory for the next start', async () => {
    const { temp, done } = runWithTemp({});
    const result = await done;
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(cached(temp).length).toBeGreaterThan(0);
  });

  it('writes nothing when NODE_DISABLE_COMPILE_CACHE is set', async () => {
    const { temp, done } = runWithTemp({ NODE_DISABLE_COMPILE_CACHE: '1' });
    const result = await done;
    expect(result.code).toBe(0);
    expect(cached(temp)).toEqual([]);
  });
});
