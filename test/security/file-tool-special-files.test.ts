import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listFilesTool, readFileTool, runWorkflow, type ToolExecutionContext } from 'dualloop';
import { scriptedModel } from 'dualloop/testing';

// Issue 15 item 5: only regular files are read, refused before any blocking open; reads are bounded.

const context: ToolExecutionContext = { signal: new AbortController().signal, toolCallId: 'call', runId: 'run', taskId: 'task', update: () => undefined };
let root: string;
let socketServer: Server;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'dualloop-special-'));
  execFileSync('mkfifo', [join(root, 'pipe')]);
  socketServer = createServer();
  await new Promise<void>((resolve) => socketServer.listen(join(root, 'socket'), resolve));
  writeFileSync(join(root, 'big.txt'), 'a'.repeat(300_000));
});
afterAll(async () => {
  await new Promise((resolve) => socketServer.close(resolve));
  rmSync(root, { recursive: true, force: true });
});

describe('special files inside the root are refused at once', () => {
  it.each([
    ['a FIFO', root, 'pipe', /FIFO/],
    ['a socket', root, 'socket', /socket/],
    ['a character device', '/dev', 'zero', /character device/],
    ['another character device', '/dev', 'null', /character device/],
  ])('read_file refuses %s', async (_kind, where, path, problem) => {
    const read = readFileTool({ root: where ?? root });
    await expect(read.execute({ path }, context)).rejects.toThrow(problem);
  });

  it('ten FIFOs read together do not exhaust the thread pool: every call answers', async () => {
    const read = readFileTool({ root });
    const outcomes = await Promise.allSettled(Array.from({ length: 10 }, () => read.execute({ path: 'pipe' }, context)));
    expect(outcomes.every((outcome) => outcome.status === 'rejected')).toBe(true);
    await expect(read.execute({ path: 'big.txt' }, context)).resolves.toMatchObject({ truncated: true });
  });

  it('list_files refuses a FIFO as a directory', async () => {
    await expect(listFilesTool({ root }).execute({ path: 'pipe' }, context)).rejects.toThrow(/FIFO/);
  });

  it('a run whose model asks for a FIFO gets an error tool result and ends', async () => {
    const model = scriptedModel([{ toolCalls: [{ name: 'read_file', args: { path: 'pipe' } }] }, { text: 'done' }]);
    const result = await runWorkflow({ model, tools: [readFileTool({ root })], tasks: ['read the pipe'] });
    expect(result.stop.reason).toBe('goal_achieved');
    const call = result.tasks[0]!.turns[0]!.toolCalls[0]!;
    expect(call.isError).toBe(true);
    expect(String(call.result)).toMatch(/FIFO/);
  });

  it('reads at most maxBytes of a large file', async () => {
    const outcome = (await readFileTool({ root, maxBytes: 1_000 }).execute({ path: 'big.txt' }, context)) as { content: string; truncated: boolean; size: number };
    expect(outcome.content).toHaveLength(1_000);
    expect(outcome.truncated).toBe(true);
    expect(outcome.size).toBe(300_000);
  });
});
