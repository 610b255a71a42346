import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listFilesTool, readFileTool, type ToolExecutionContext } from 'dualloop';

// Issue 15 item 4: a directory on the way to the file is swapped for a symbolic link to the outside
// while the tools run. The swapper is a thread of its own, so the swap lands between any two steps.

const context: ToolExecutionContext = { signal: new AbortController().signal, toolCallId: 'call', runId: 'run', taskId: 'task', update: () => undefined };
const CALLS = 1_500;
const SWAPPER = `
const { renameSync } = require('node:fs');
const { join } = require('node:path');
const { workerData } = require('node:worker_threads');
const flag = new Int32Array(workerData.flag);
const at = (name) => join(workerData.root, name);
while (Atomics.load(flag, 0) === 0) {
  for (const [from, back] of [['dir-real', 'dir-real'], ['dir-link', 'dir-link']]) {
    try { renameSync(at(from), at('dir')); } catch {}
    try { renameSync(at('dir'), at(back)); } catch {}
  }
}`;

let base: string;
let root: string;

beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), 'dualloop-race-'));
  root = join(base, 'root');
  mkdirSync(join(root, 'dir-real'), { recursive: true });
  writeFileSync(join(root, 'dir-real', 'note.txt'), 'inside\n');
  mkdirSync(join(base, 'outside'));
  writeFileSync(join(base, 'outside', 'note.txt'), 'OUTSIDE SECRET\n');
  writeFileSync(join(base, 'outside', 'only-outside.txt'), 'x');
  symlinkSync(join(base, 'outside'), join(root, 'dir-link'));
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

async function underSwaps(attempt: () => Promise<unknown>): Promise<{ escapes: number; answered: number; refused: number }> {
  const flag = new SharedArrayBuffer(4);
  const swapper = new Worker(SWAPPER, { eval: true, workerData: { root, flag } });
  await new Promise((resolve) => swapper.once('online', resolve));
  let escapes = 0;
  let answered = 0;
  let refused = 0;
  try {
    for (let batch = 0; batch < CALLS / 10; batch++) {
      await Promise.all(
        Array.from({ length: 10 }, async () => {
          try {
            const value = JSON.stringify(await attempt());
            answered++;
            if (value.includes('OUTSIDE') || value.includes('only-outside')) escapes++;
          } catch {
            refused++;
          }
        }),
      );
    }
  } finally {
    Atomics.store(new Int32Array(flag), 0, 1);
    await swapper.terminate();
  }
  return { escapes, answered, refused };
}

describe('file tools under a symbolic link swapped between check and open', () => {
  it(`read_file: ${CALLS} calls, 0 escapes`, async () => {
    const read = readFileTool({ root });
    const outcome = await underSwaps(() => read.execute({ path: 'dir/note.txt' }, context) as Promise<unknown>);
    expect(outcome.answered + outcome.refused).toBe(CALLS);
    expect(outcome.escapes).toBe(0);
  });

  it(`list_files: ${CALLS} calls, 0 escapes`, async () => {
    const list = listFilesTool({ root });
    const outcome = await underSwaps(() => list.execute({ path: 'dir' }, context) as Promise<unknown>);
    expect(outcome.answered + outcome.refused).toBe(CALLS);
    expect(outcome.escapes).toBe(0);
  });
});
