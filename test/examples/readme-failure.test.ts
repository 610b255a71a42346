import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { NODE, ROOT } from '../cli/cli-process.js';

/**
 * The README's TypeScript example as a new user first meets it: no API key. It must say why the
 * run stopped — the stop reason and its detail — not only `task-1 error`.
 */

let directory: string | undefined;
afterEach(() => {
  if (directory !== undefined) rmSync(directory, { recursive: true, force: true });
  directory = undefined;
});

function firstTypeScriptBlock(markdown: string): string {
  const match = /```ts\n([\s\S]*?)```/.exec(markdown);
  if (match === null) throw new Error('README.md has no TypeScript block');
  return match[1]!;
}

/** A consumer directory where `dualloop` is this repository (its built `dist/`) and `zod` its copy. */
function consumer(source: string): string {
  directory = mkdtempSync(join(tmpdir(), 'dualloop-readme-'));
  mkdirSync(join(directory, 'node_modules'));
  symlinkSync(ROOT, join(directory, 'node_modules', 'dualloop'), 'dir');
  symlinkSync(join(ROOT, 'node_modules', 'zod'), join(directory, 'node_modules', 'zod'), 'dir');
  writeFileSync(join(directory, 'example.ts'), source);
  return directory;
}

describe("the README's TypeScript example", () => {
  it('without an API key prints the stop reason and the detail that says why', async () => {
    const dir = consumer(firstTypeScriptBlock(readFileSync(join(ROOT, 'README.md'), 'utf8')));
    const child = spawn(NODE, ['example.ts'], { cwd: dir, env: { ...process.env, OPENAI_API_KEY: '', OPENAI_BASE_URL: '' } });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    await new Promise((resolve) => child.on('close', resolve));

    expect(stdout).toContain('first: error — model failure: auth_failed: no OpenAI API key: set the OPENAI_API_KEY environment variable');
    expect(stdout).toMatch(/^run run-\S+: error — task "first" stopped: model failure: auth_failed: /m);
    expect(stdout).toContain('sum: none');
  });
});
