import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listFilesTool, readFileTool, type ToolExecutionContext } from 'dualloop';

const context: ToolExecutionContext = { signal: new AbortController().signal, toolCallId: 'call_1', runId: 'run', taskId: 'task', update: () => undefined };
let base: string;
let root: string;

beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), 'dualloop-files-'));
  root = join(base, 'root');
  mkdirSync(join(root, 'notes'), { recursive: true });
  writeFileSync(join(root, 'hello.txt'), 'hello, world\n');
  writeFileSync(join(root, 'notes', 'a.md'), '# A\n');
  writeFileSync(join(root, 'blob.bin'), Buffer.from([1, 0, 2]));
  writeFileSync(join(base, 'secret.txt'), 'outside the root\n');
  symlinkSync(join(base, 'secret.txt'), join(root, 'escape.txt'));
  symlinkSync(base, join(root, 'escape-dir'));
  symlinkSync(join(root, 'hello.txt'), join(root, 'inside-link.txt'));
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

const read = (path: string, maxBytes?: number) => readFileTool({ root, ...(maxBytes === undefined ? {} : { maxBytes }) }).execute({ path }, context);
const list = (path: string) => listFilesTool({ root }).execute({ path }, context);

describe('read_file', () => {
  it('reads a text file under its root', async () => {
    await expect(read('hello.txt')).resolves.toEqual({ path: 'hello.txt', size: 13, truncated: false, content: 'hello, world\n' });
    await expect(read('./notes/../notes/a.md')).resolves.toMatchObject({ path: 'notes/a.md', content: '# A\n' });
  });

  it('follows a symbolic link that stays inside the root', async () => {
    await expect(read('inside-link.txt')).resolves.toMatchObject({ path: 'hello.txt', content: 'hello, world\n' });
  });

  it('cuts a file longer than maxBytes and says so', async () => {
    await expect(read('hello.txt', 5)).resolves.toEqual({ path: 'hello.txt', size: 13, truncated: true, content: 'hello' });
  });

  it.each([
    ['../secret.txt', /outside the tool's root/],
    ['notes/../../secret.txt', /outside the tool's root/],
    ['escape.txt', /symbolic link that leads outside/],
    ['escape-dir/secret.txt', /symbolic link that leads outside/],
    ['/etc/passwd', /is absolute/],
    ['missing.txt', /does not exist/],
    ['notes', /is a directory; use list_files/],
    ['blob.bin', /looks like a binary file/],
    ['a\0b', /NUL/],
  ])('refuses %s', async (path, problem) => {
    await expect(read(path)).rejects.toThrow(problem);
  });
});

describe('list_files', () => {
  it('lists a directory under its root, sorted, with kinds', async () => {
    await expect(list('.')).resolves.toEqual({
      path: '.',
      truncated: false,
      entries: [
        { name: 'blob.bin', type: 'file' },
        { name: 'escape-dir', type: 'symlink' },
        { name: 'escape.txt', type: 'symlink' },
        { name: 'hello.txt', type: 'file' },
        { name: 'inside-link.txt', type: 'symlink' },
        { name: 'notes', type: 'directory' },
      ],
    });
  });

  it('refuses to list outside its root', async () => {
    await expect(list('..')).rejects.toThrow(/outside the tool's root/);
    await expect(list('escape-dir')).rejects.toThrow(/symbolic link that leads outside/);
    await expect(list('hello.txt')).rejects.toThrow(/not a directory; use read_file/);
  });
});
