import { execFileSync } from 'node:child_process';
import { symlinkSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runCli } from '../cli/cli-process.js';
import { useWorkspace } from '../cli/workspace.js';

// Issue 15 item 10: a manifest never makes the CLI hang, and a hostile one is exit 64 with one line.

const workspace = useWorkspace();

const BOMB = [
  'name: bomb',
  'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]',
  'b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]',
  'c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]',
  'd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]',
  'e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]',
  'f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]',
  'g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]',
].join('\n');

function writeWithModule(write: (name: string, content: string) => string, name: string, module: string): string {
  write('cassette.yaml', '- { text: done }\n');
  return write(name, ['name: m', 'model: { provider: scripted, script: ./cassette.yaml }', `tools: { module: ${JSON.stringify(module)} }`, 'tasks: [go]'].join('\n'));
}

function expectOneLineRefusal(result: { code: number | null; stderr: string; stdout: string }, problem: RegExp): void {
  expect(result.code).toBe(64);
  const lines = `${result.stdout}${result.stderr}`.trim().split('\n').filter((line) => line.trim() !== '');
  expect(lines.join('\n')).toMatch(problem);
  expect(lines.join('\n')).not.toMatch(/\n\s+at /);
  expect(lines.length).toBeLessThanOrEqual(2);
}

describe('hostile manifests', () => {
  it.each(['validate', 'run'])('%s refuses a YAML alias bomb with exit 64 and one line', async (command) => {
    const { write, dir } = workspace();
    write('bomb.yaml', BOMB);
    expectOneLineRefusal(await runCli([command, 'bomb.yaml'], { cwd: dir }), /alias/i);
  });

  it('an alias bomb whose aliases are mapping keys is refused in one line, without the yaml package warnings', async () => {
    const { dir, write } = workspace();
    const levels = ['k0: &k0 [a, b, c, d, e, f, g, h, i, j]'];
    for (let level = 1; level < 9; level += 1) levels.push(`k${level}: &k${level} { ? *k${level - 1} : *k${level - 1}, x: [${Array(9).fill(`*k${level - 1}`).join(', ')}] }`);
    write('key-bomb.yaml', ['name: m', ...levels, 'tasks: [go]'].join('\n'));
    expectOneLineRefusal(await runCli(['validate', 'key-bomb.yaml'], { cwd: dir }), /Excessive alias count/);
  });

  it('an unresolved alias is refused for what it is, without the alias-bomb explanation', async () => {
    const { write, dir } = workspace();
    write('unresolved.yaml', 'name: m\ntasks: [*missing]\n');
    const result = await runCli(['validate', 'unresolved.yaml'], { cwd: dir });
    expectOneLineRefusal(result, /Unresolved alias/);
    expect(`${result.stdout}${result.stderr}`).not.toMatch(/expand to more than/);
  });

  it('a manifest nested deeper than the parser can follow is refused as nested too deeply, in one line', async () => {
    const { write, dir } = workspace();
    write('deep.yaml', `name: m\nmodel: ${'['.repeat(20_000)}${']'.repeat(20_000)}\n`);
    const result = await runCli(['validate', 'deep.yaml'], { cwd: dir });
    expectOneLineRefusal(result, /nested too deeply to read/);
    expect(`${result.stdout}${result.stderr}`).not.toMatch(/call stack/i);
  });

  it('the alias bomb is refused with the explanation', async () => {
    const { write, dir } = workspace();
    write('bomb.yaml', BOMB);
    const result = await runCli(['validate', 'bomb.yaml'], { cwd: dir });
    expect(`${result.stdout}${result.stderr}`).toMatch(/Excessive alias count.*\(aliases expand to more than 100 times their size\)/);
  });

  it.each(['validate', 'run'])('%s refuses tools.module pointing at /dev/zero (no hang)', async (command) => {
    const { write, dir } = workspace();
    writeWithModule(write, 'zero.yaml', '/dev/zero');
    expectOneLineRefusal(await runCli([command, 'zero.yaml'], { cwd: dir }), /tools\.module.*not a regular file/);
  });

  it('validate refuses tools.module that is a FIFO (no hang)', async () => {
    const { write, dir, path } = workspace();
    execFileSync('mkfifo', [path('tools.mjs')]);
    writeWithModule(write, 'fifo.yaml', './tools.mjs');
    expectOneLineRefusal(await runCli(['validate', 'fifo.yaml'], { cwd: dir }), /not a regular file/);
  });

  it('validate refuses a manifest that is /dev/zero or a FIFO (no hang)', async () => {
    const { dir, path } = workspace();
    symlinkSync('/dev/zero', path('zero.yaml'));
    execFileSync('mkfifo', [path('pipe.yaml')]);
    expectOneLineRefusal(await runCli(['validate', 'zero.yaml'], { cwd: dir }), /not a regular file/);
    expectOneLineRefusal(await runCli(['validate', 'pipe.yaml'], { cwd: dir }), /not a regular file/);
  });
});
