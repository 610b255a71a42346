import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listFilesTool, readFileTool, runWorkflow, type ToolExecutionContext } from 'dualloop';
import { scriptedModel } from 'dualloop/testing';

// Issue 15 items 4-5: a file tool's error speaks of the path relative to its root; it never tells the
// model where the root is on disk (Node's own messages name the absolute path).

const context: ToolExecutionContext = { signal: new AbortController().signal, toolCallId: 'call', runId: 'run', taskId: 'task', update: () => undefined };
let root: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'dualloop-errors-'));
  writeFileSync(join(root, 'notes.txt'), 'hello');
  mkdirSync(join(root, 'docs'));
  symlinkSync('loop-b', join(root, 'loop-a'));
  symlinkSync('loop-a', join(root, 'loop-b'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

async function message(run: () => unknown): Promise<string> {
  try {
    await run();
  } catch (error) {
    return String((error as Error).message);
  }
  throw new Error('the call succeeded');
}

describe('file tool errors name the path relative to the root', () => {
  it.each([
    ['read_file', 'a path through a file', 'notes.txt/inside', /"notes\.txt\/inside": a part of the path is not a directory/],
    ['read_file', 'a loop of symbolic links', 'loop-a', /"loop-a" leads into a loop of symbolic links/],
    ['read_file', 'a name too long', `${'n'.repeat(300)}.txt`, /is too long a path/],
    ['read_file', 'a missing file', 'docs/missing.txt', /"docs\/missing\.txt" does not exist/],
    ['list_files', 'a path through a file', 'notes.txt/inside', /"notes\.txt\/inside": a part of the path is not a directory/],
    ['list_files', 'a loop of symbolic links', 'loop-b', /"loop-b" leads into a loop of symbolic links/],
  ])('%s: %s', async (tool, _case, path, expected) => {
    const execute = tool === 'read_file' ? readFileTool({ root }).execute : listFilesTool({ root }).execute;
    const text = await message(() => execute({ path }, context));
    expect(text).toMatch(expected);
    expect(text).not.toContain(root);
    expect(text).not.toMatch(/\b(lstat|realpath|open|scandir)\b.*'\//);
  });

  it('a missing root is named as the root, not by its absolute path', async () => {
    const text = await message(() => readFileTool({ root: join(root, 'gone') }).execute({ path: 'notes.txt' }, context));
    expect(text).toBe("the tool's root directory cannot be opened (ENOENT)");
  });

  it('the model sees the relative error in its tool result', async () => {
    const model = scriptedModel([{ toolCalls: [{ name: 'read_file', args: { path: 'notes.txt/inside' } }] }, { text: 'done' }]);
    const result = await runWorkflow({ model, tools: [readFileTool({ root })], tasks: ['read'] });
    const call = result.tasks[0]!.turns[0]!.toolCalls[0]!;
    expect(call.isError).toBe(true);
    expect(String(call.result)).not.toContain(root);
    expect(model.calls[1]!.messages.find((entry) => entry.role === 'tool')?.content).toBe('Error: "notes.txt/inside": a part of the path is not a directory');
  });
});
