/**
 * The demo: a three-task workflow on the scripted model and the embedded defaults.
 * Run with `npm run demo`. It prints each task's stop reason and the workflow's.
 */
import { z } from 'zod';
import { createKernel, defineTool } from '../src/index.js';
import { scriptedModel } from '../src/testing/index.js';

const add = defineTool({
  name: 'add',
  description: 'Adds two numbers.',
  parameters: z.object({ a: z.number(), b: z.number() }),
  execute: ({ a, b }) => a + b,
});

const model = scriptedModel([
  { toolCalls: [{ name: 'add', args: { a: 2, b: 3 } }], usage: { inputTokens: 40, outputTokens: 12 } },
  { text: '2 + 3 = 5', usage: { inputTokens: 60, outputTokens: 8 } },
  { toolCalls: [{ name: 'add', args: { a: 5, b: 7 } }], usage: { inputTokens: 45, outputTokens: 12 } },
  { text: 'The total is 12.', usage: { inputTokens: 70, outputTokens: 9 } },
  { text: 'Summary: 5, then 12.', usage: { inputTokens: 80, outputTokens: 10 } },
]);

const kernel = createKernel({ model, tools: [add], system: 'You are a careful calculator.' });
const run = kernel.start(['Add 2 and 3.', 'Add 7 to the previous result.', 'Summarise the results.']);
for await (const event of run) {
  if (event.type === 'task_end') console.log(`task ${event.taskId}: ${event.stop.reason} (${event.stop.detail})`);
}
const result = await run.result;
console.log(`workflow: ${result.stop.reason} (${result.stop.detail}); ${result.metrics.turns} turns, ${result.metrics.toolCalls} tool calls`);
