/**
 * `strategy: 'plan_execute'` (docs/strategies.md): a planner model turns the goal into steps, a
 * cheaper executor model runs each step through the inner turn loop, and a failed step is
 * replanned. The plans are events, kept by the store and shown by the audit.
 * Run: `npm run build && node dist/examples/strategies/plan-execute.js`
 */
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { createKernel, defineTool, memoryStore } from '../../src/index.js';
import { collectRun, scriptedModel } from '../../src/testing/index.js';

export async function main(log: (line: string) => void = console.log): Promise<void> {
  const fetchPage = defineTool({
    name: 'fetch_page',
    description: 'Fetches a page of the docs site.',
    parameters: z.object({ url: z.string() }),
    execute: ({ url }) => (url.includes('mirror') ? 'Release 2.0: faster resume, plan strategies.' : new Error('503 from docs.example.com')),
  });
  // The planner: a first plan, then a revision after the fetch step fails.
  const planner = scriptedModel(
    [
      { text: '```json\n{"steps": ["Fetch the release notes from docs.example.com", "Summarize them in one sentence"]}\n```' },
      { text: 'The site is down; use the mirror.\n1. Fetch the release notes from mirror.example.com\n2. Summarize them in one sentence' },
    ],
    { modelId: 'big-planner' },
  );
  // The executor: each entry is one turn of a step.
  const model = scriptedModel(
    [
      { toolCalls: [{ name: 'fetch_page', args: { url: 'https://docs.example.com/releases' } }] },
      { error: 'the page could not be fetched' },
      { toolCalls: [{ name: 'fetch_page', args: { url: 'https://mirror.example.com/releases' } }] },
      { text: 'Release 2.0: faster resume, plan strategies.' },
      { text: 'Release 2.0 makes resume faster and adds plan strategies.' },
    ],
    { modelId: 'small-executor' },
  );

  const store = memoryStore();
  const kernel = createKernel({ model, planner, tools: [fetchPage], store, strategy: 'plan_execute', bounds: { outer: { maxReplans: 1 } } });
  const { events, result } = await collectRun(kernel.start(['Summarize the latest release notes'], { runId: 'plan-execute-example' }));

  for (const event of events) {
    if (event.type === 'plan_created') log(`plan v${event.version}: ${event.steps.map((step) => step.description).join(' → ')}`);
    if (event.type === 'plan_revised') log(`plan v${event.version} (${event.trigger}, replans used ${event.replansUsed}): ${event.steps.map((step) => step.description).join(' → ')}`);
  }
  for (const task of result.tasks) log(`${task.taskId}: ${task.stop.reason} — ${task.output || task.stop.detail}`);
  log(`stop: ${result.stop.reason} (${result.stop.detail})`);
  log(`turns: ${result.metrics.turns} (planner calls included); planner calls: ${planner.calls.length}, executor calls: ${model.calls.length}`);
  const audit = await store.audit('plan-execute-example');
  log(`audit plans: ${audit?.plans.map((plan) => plan.kind).join(', ')}`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
