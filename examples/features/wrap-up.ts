/**
 * `wrapUpOnBound` (docs/wrap-up.md): a task cut by `maxTurns` gets one last model call, without
 * tools, asking for its best answer so far. Recorded on the task, not counted as a turn.
 * Run: `npm run build && node dist/examples/features/wrap-up.js`
 */
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { createKernel, defineTool } from '../../src/index.js';
import { collectRun, scriptedModel } from '../../src/testing/index.js';

export async function main(log: (line: string) => void = console.log): Promise<void> {
  const search = defineTool({ name: 'search', description: 'Searches.', parameters: z.object({ query: z.string() }), execute: ({ query }) => `results for ${query}` });
  // The model would search forever; when asked to wrap up (no tools offered) it answers.
  const model = scriptedModel(({ index, messages }) => {
    const last = messages.at(-1);
    return last?.role === 'user' && last.source === 'wrap_up'
      ? { text: 'Best answer so far: the bug is in the retry loop.' }
      : { toolCalls: [{ name: 'search', args: { query: `attempt ${index}` } }] };
  });

  const kernel = createKernel({ model, tools: [search], wrapUpOnBound: true, bounds: { inner: { maxTurns: 3 } } });
  const { result } = await collectRun(kernel.start(['Find the bug.']));
  const task = result.tasks[0]!;
  log(`stop: ${task.stop.reason} (${task.stop.detail})`);
  log(`turns: ${task.turnCount}, model calls: ${model.calls.length}, tools offered on the last call: ${model.calls.at(-1)!.tools.length}`);
  log(`output: ${task.output}`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
