/**
 * A durable run (docs/durability.md): a run on `sqliteStore` is cut after its first task, and a
 * second kernel — as another process would — opens the same file, resumes the run from its last
 * checkpoint and prints the audit's stop tree.
 * Run: `npm run build && node dist/examples/features/durable-store.js`
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { createKernel, defineTool, sqliteStore } from '../../src/index.js';
import { collectRun, scriptedModel, type Script } from '../../src/testing/index.js';

const wordCount = defineTool({
  name: 'word_count',
  description: 'Counts the words of a text.',
  parameters: z.object({ text: z.string() }),
  execute: ({ text }) => ({ words: text.split(/\s+/).filter(Boolean).length }),
});

// The model's answers by call index: the index is saved in checkpoints, so a resumed run asks
// for exactly the answers it had not had yet. The third answer takes a moment, so that the abort
// below lands while the second task waits for it.
const script: Script = ({ index }) =>
  [
    { toolCalls: [{ name: 'word_count', args: { text: 'runs survive crashes' } }] },
    { text: 'The first text has 3 words.' },
    { toolCalls: [{ name: 'word_count', args: { text: 'every stop can be explained' } }], delayMs: 50 },
    { text: 'The second text has 5 words.' },
  ][index] ?? { text: 'done' };

export async function main(log: (line: string) => void = console.log): Promise<void> {
  const directory = mkdtempSync(join(tmpdir(), 'dualloop-example-'));
  const path = join(directory, 'runs.db');
  try {
    // The first process: cut after its first task (an abort here; a crash would do the same).
    const firstStore = sqliteStore({ path });
    const first = createKernel({ model: scriptedModel(script), tools: [wordCount], store: firstStore });
    const run = first.start(['Count the words of the first text.', 'Count the words of the second text.'], { runId: 'word-counts' });
    for await (const event of run) if (event.type === 'task_end' && event.taskIndex === 0) run.abort('the process is going away');
    log(`first process: ${(await run.result).stop.reason} after ${firstStore.listRuns()[0]?.tasksDone} of 2 tasks`);
    firstStore.close();

    // The second process: the same file, a new kernel, the run continues where it stopped.
    const store = sqliteStore({ path });
    const model = scriptedModel(script);
    const second = createKernel({ model, tools: [wordCount], store });
    const { result } = await collectRun(await second.resume('word-counts'));
    log(`second process: ${result.stop.reason}; model calls made: ${model.calls.map((call) => call.index).join(', ')}`);

    const report = store.audit('word-counts');
    for (const task of report?.tasks ?? []) {
      log(`  ${task.taskId}: ${task.stop.reason} after ${task.counters.turns} turns, ${task.counters.toolCalls} tool call(s)`);
    }
    log(`events in the log: ${report?.events}`);
    store.close();
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
