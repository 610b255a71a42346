/**
 * Steering and follow-up queues (docs/steering.md). A steer sent while a tool runs reaches the
 * very next model call; a follow-up waits until the model would stop, then keeps it going.
 * Run: `npm run build && node dist/examples/features/steering.js`
 */
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { createKernel, defineTool, type WorkflowRun } from '../../src/index.js';
import { collectRun, scriptedModel } from '../../src/testing/index.js';

export async function main(log: (line: string) => void = console.log): Promise<void> {
  let run: WorkflowRun | undefined;
  const search = defineTool({
    name: 'search',
    description: 'Searches the docs.',
    parameters: z.object({ query: z.string() }),
    execute: ({ query }) => {
      // A person watching the run changes course while the tool is running.
      run?.steer('Only consider the v2 API.');
      return `3 pages about ${query}`;
    },
  });
  const model = scriptedModel([
    { toolCalls: [{ name: 'search', args: { query: 'pagination' } }] },
    { text: 'Use cursor pagination (v2).' },
    { text: 'Example: GET /v2/items?cursor=abc' },
  ]);

  run = createKernel({ model, tools: [search], steeringMode: 'one-at-a-time', followUpMode: 'one-at-a-time' }).start(['How do I paginate?']);
  run.followUp('Now show a request example.');
  const { result } = await collectRun(run);

  model.calls.forEach((call, index) => {
    const users = call.messages.filter((message) => message.role === 'user').map((message) => message.content);
    log(`model call ${index + 1} sees: ${users.join(' / ')}`);
  });
  log(`answer: ${result.tasks[0]!.output}`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
