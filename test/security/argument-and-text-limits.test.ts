import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createKernel, defineTool, sqliteStore, type KernelEvent, type KernelOptions } from 'dualloop';
import { scriptedModel, type ScriptStep } from 'dualloop/testing';
import { runCli } from '../cli/cli-process.js';
import { useWorkspace } from '../cli/workspace.js';

// Issue 15 item 9, DESIGN §12: tool-call arguments and model text have size limits with options
// (limits.toolArgumentsChars, limits.modelTextChars), enforced where the model's answer enters the run.

const workspace = useWorkspace();
const TWO_MIB = 2 * 1024 * 1024;

async function runScript(script: ScriptStep[], options: Partial<KernelOptions> = {}) {
  const { dir } = workspace();
  const store = sqliteStore({ path: join(dir, 'runs.db') });
  let executed = 0;
  const save = defineTool({
    name: 'save',
    description: 'Saves data.',
    parameters: z.object({ data: z.string() }),
    execute: ({ data }) => {
      executed += 1;
      return `saved ${data.length} characters`;
    },
  });
  const run = createKernel({ model: scriptedModel(script), tools: [save], store, ...options }).start(['go']);
  const events: KernelEvent[] = [];
  for await (const event of run) events.push(event);
  const result = await run.result;
  const stored = JSON.stringify([await store.readEvents(run.runId), await store.loadCheckpoint(run.runId), await store.loadResult(run.runId)]);
  await store.close?.();
  return { result, events, stored, executed: () => executed };
}

const ofType = <T extends KernelEvent['type']>(events: readonly KernelEvent[], type: T) => events.filter((event): event is Extract<KernelEvent, { type: T }> => event.type === type);

describe('tool-call arguments have a size limit', () => {
  it('2 MiB of arguments are an error tool result, the tool never runs, and every stored copy is cut with a marker', async () => {
    const { result, events, stored, executed } = await runScript([{ toolCalls: [{ name: 'save', args: { data: 'a'.repeat(TWO_MIB) } }] }, { text: 'done' }]);

    expect(result.stop.reason).toBe('goal_achieved');
    expect(executed()).toBe(0);
    const call = result.tasks[0]!.turns[0]!.toolCalls[0]!;
    expect(call.isError).toBe(true);
    expect(String(call.result)).toContain('the arguments are more than 262144 characters, the limit is 262144 (option limits.toolArgumentsChars)');
    const marker = /^\{"data":"a{1000,}… \[truncated: the arguments are more than 262144 characters, the limit is 262144 \(option limits\.toolArgumentsChars\)\]$/;
    expect(call.args).toMatch(marker);
    expect(ofType(events, 'message_end')[0]!.toolCalls[0]!.args).toMatch(marker);
    expect(ofType(events, 'tool_execution_start')[0]!.args).toMatch(marker);
    expect(ofType(events, 'tool_execution_end')[0]).toMatchObject({ isError: true });
    // Events, checkpoint and result together: a few copies of the 1 KiB preview, not of 2 MiB.
    expect(stored.length).toBeLessThan(40_000);
  });

  it('limits.toolArgumentsChars raises the limit: 300 000 characters then reach the tool whole', async () => {
    const { result, executed } = await runScript([{ toolCalls: [{ name: 'save', args: { data: 'b'.repeat(300_000) } }] }, { text: 'done' }], { limits: { toolArgumentsChars: 400_000 } });
    expect(executed()).toBe(1);
    expect(result.tasks[0]!.turns[0]!.toolCalls[0]).toMatchObject({ isError: false, result: 'saved 300000 characters' });
  });

  it('arguments a custom model hands over as one long string are measured and cut the same way', async () => {
    const { result, executed } = await runScript([{ toolCalls: [{ name: 'save', args: 'c'.repeat(5_000) }] }, { text: 'done' }], { limits: { toolArgumentsChars: 1_000 } });
    expect(executed()).toBe(0);
    const call = result.tasks[0]!.turns[0]!.toolCalls[0]!;
    expect(call.isError).toBe(true);
    expect(call.args).toBe(`${'c'.repeat(1_000)}… [truncated: the arguments are 5000 characters, the limit is 1000 (option limits.toolArgumentsChars)]`);
  });
});

/** How many times the SQLite file's rows hold `needle`, over every text cell of every table. */
function copiesInDatabase(path: string, needle: string): number {
  const database = new DatabaseSync(path, { readOnly: true });
  try {
    let copies = 0;
    for (const { name } of database.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]) {
      for (const row of database.prepare(`SELECT * FROM "${name}"`).all()) {
        for (const cell of Object.values(row)) if (typeof cell === 'string') copies += cell.split(needle).length - 1;
      }
    }
    return copies;
  } finally {
    database.close();
  }
}

describe('arguments within the limit are not copied more than the run shows them', () => {
  it('loop detection keys long arguments by a digest: the store holds them once per event, checkpoint and result that shows them', async () => {
    const { dir } = workspace();
    const path = join(dir, 'runs.db');
    const store = sqliteStore({ path });
    const data = 'q'.repeat(100_000);
    const save = defineTool({ name: 'save', description: 'Saves data.', parameters: z.object({ data: z.string() }), execute: () => 'ok' });
    const result = await createKernel({ model: scriptedModel([{ toolCalls: [{ name: 'save', args: { data } }] }, { text: 'done' }]), tools: [save], store }).start(['go']).result;
    await store.close?.();
    expect(result.stop.reason).toBe('goal_achieved');
    // message_end, tool_execution_start, turn_end; the turn checkpoint's transcript and turn; the
    // task's checkpoint result; the recorded tool result; the run result. Not the loop-detection key.
    expect(copiesInDatabase(path, data)).toBe(8);
  });

  it('the same long call three times in a row is still loop_detected; long calls that differ are not', async () => {
    const same = 'r'.repeat(10_000);
    const repeated = await runScript([...[1, 2, 3].map((): ScriptStep => ({ toolCalls: [{ name: 'save', args: { data: same } }] })), { text: 'done' }], { loopDetection: { threshold: 3 } });
    expect(repeated.result.tasks[0]!.stop.reason).toBe('loop_detected');
    const differing = await runScript([...[1, 2, 3].map((index): ScriptStep => ({ toolCalls: [{ name: 'save', args: { data: `${same}${index}` } }] })), { text: 'done' }], { loopDetection: { threshold: 3 } });
    expect(differing.result.tasks[0]!.stop.reason).toBe('planner_stopped');
  });
});

describe("a model's text has a size limit", () => {
  it('2 MiB of streamed text is cut at the default limit with a marker and a warning, live and stored', async () => {
    const text = 'x'.repeat(TWO_MIB);
    const chunks = Array.from({ length: 64 }, (_, index) => text.slice(index * 32_768, (index + 1) * 32_768));
    const { result, events, stored } = await runScript([{ text, chunks }]);

    expect(result.stop.reason).toBe('goal_achieved');
    const marker = `… [truncated: the model's text is ${TWO_MIB} characters, the limit is 1048576 (option limits.modelTextChars)]`;
    expect(ofType(events, 'message_end')[0]!.text).toBe(`${'x'.repeat(1_048_576)}${marker}`);
    expect(result.tasks[0]!.output).toBe(`${'x'.repeat(1_048_576)}${marker}`);
    expect(ofType(events, 'message_update').reduce((total, event) => total + event.delta.length, 0)).toBe(1_048_576);
    expect(ofType(events, 'warning').map((event) => event.message)).toContain(`the model's text was cut at 1048576 of its ${TWO_MIB} characters (option limits.modelTextChars)`);
    // Every stored copy of the text (message_update, message_end, turn_end, checkpoint, result) is cut.
    expect(stored.length).toBeLessThan(8 * 1_048_576);
  });

  it('limits.modelTextChars changes the limit', async () => {
    const { result } = await runScript([{ text: 'y'.repeat(10_000) }], { limits: { modelTextChars: 100 } });
    expect(result.tasks[0]!.output).toBe(`${'y'.repeat(100)}… [truncated: the model's text is 10000 characters, the limit is 100 (option limits.modelTextChars)]`);
  });
});

describe('the limits in a manifest', () => {
  it('are passed to the run', async () => {
    const { write, dir } = workspace();
    write('cassette.yaml', `- { text: ${'z'.repeat(500)} }\n`);
    write('limits.yaml', ['name: limits', 'model: { provider: scripted, script: ./cassette.yaml }', 'tasks: [go]', 'limits: { modelTextChars: 100 }'].join('\n'));
    const run = await runCli(['run', 'limits.yaml', '--json'], { cwd: dir });
    expect(run.code).toBe(0);
    const end = run.stdout.trim().split('\n').map((line) => JSON.parse(line) as { type: string; text?: string }).find((event) => event.type === 'message_end');
    expect(end!.text).toBe(`${'z'.repeat(100)}… [truncated: the model's text is 500 characters, the limit is 100 (option limits.modelTextChars)]`);
  });

  it('a limit below its minimum is refused with exit 64, naming the field', async () => {
    const { write, dir } = workspace();
    write('cassette.yaml', '- { text: done }\n');
    write('limits.yaml', ['name: limits', 'model: { provider: scripted, script: ./cassette.yaml }', 'tasks: [go]', 'limits: { toolArgumentsChars: 10 }'].join('\n'));
    const validate = await runCli(['validate', 'limits.yaml'], { cwd: dir });
    expect(validate.code).toBe(64);
    expect(`${validate.stdout}${validate.stderr}`).toMatch(/limits\.toolArgumentsChars/);
  });
});
