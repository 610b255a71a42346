/**
 * Tool execution modes (docs/tool-execution.md). Three lookups marked `parallel` run together,
 * then the `save` call (sequential by default) runs alone; results come back in source order.
 * Run: `npm run build && node dist/examples/features/tool-execution.js`
 */
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { createKernel, defineTool } from '../../src/index.js';
import { collectRun, scriptedModel } from '../../src/testing/index.js';

export async function main(log: (line: string) => void = console.log): Promise<void> {
  const started = Date.now();
  const at = () => `${String(Date.now() - started).padStart(3)} ms`;

  const lookup = defineTool({
    name: 'lookup',
    description: 'Looks a city up (slow, read-only: safe to run in parallel).',
    parameters: z.object({ city: z.string(), ms: z.number() }),
    executionMode: 'parallel',
    execute: async ({ city, ms }) => {
      log(`${at()}  lookup ${city} starts`);
      await new Promise((resolve) => setTimeout(resolve, ms));
      log(`${at()}  lookup ${city} ends`);
      return `${city}: sunny`;
    },
  });
  const save = defineTool({
    name: 'save',
    description: 'Saves the report (writes: runs alone).',
    parameters: z.object({ text: z.string() }),
    execute: ({ text }) => {
      log(`${at()}  save starts and ends`);
      return `saved ${text.length} characters`;
    },
  });

  const model = scriptedModel([
    {
      toolCalls: [
        { name: 'lookup', args: { city: 'Oslo', ms: 60 } },
        { name: 'lookup', args: { city: 'Lima', ms: 20 } },
        { name: 'lookup', args: { city: 'Pune', ms: 60 } },
        { name: 'save', args: { text: 'weather report' } },
      ],
    },
    { text: 'Report saved.' },
  ]);

  // `batch` is the default: parallel-marked calls run together, every other call alone, in order.
  // `toolConcurrency` caps how many run at once (here 2 of the 3 lookups).
  const kernel = createKernel({ model, tools: [lookup, save], toolExecution: 'batch', toolConcurrency: 2 });
  const { result } = await collectRun(kernel.start(['Write the weather report.']));

  const results = result.tasks[0]!.turns[0]!.toolCalls.map((call) => String(call.result));
  log(`results, in source order: ${results.join(' | ')}`);
  log(`task: ${result.tasks[0]!.stop.reason}`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
