/**
 * `strategy: 'auto'` (docs/strategies.md): the kernel picks `react`, `plan_execute` or `hybrid`
 * per workflow from `autoRules`, and reports the choice and its reason as a `strategy_selected` event.
 * Run: `npm run build && node dist/examples/strategies/auto.js`
 */
import { fileURLToPath } from 'node:url';
import { createKernel } from '../../src/index.js';
import { collectRun, scriptedModel } from '../../src/testing/index.js';

export async function main(log: (line: string) => void = console.log): Promise<void> {
  const plan = { text: '{"steps": ["List the endpoints", "Port each endpoint", "Update the docs"]}' };
  const workflows: { name: string; tasks: string[] }[] = [
    { name: 'one short task', tasks: ['Rename config.yml to config.yaml'] },
    { name: 'a long goal', tasks: [`Port the service to the v2 API. ${'Every endpoint must keep working and each change must be documented. '.repeat(8)}`] },
  ];
  for (const workflow of workflows) {
    const planner = scriptedModel([plan, { text: '{"keep": true}' }, { text: '{"keep": true}' }]);
    const model = scriptedModel(({ index }) => ({ text: `done (${index})` }));
    const kernel = createKernel({ model, planner, strategy: 'auto', autoRules: { longGoalChars: 400 } });
    const { events, result } = await collectRun(kernel.start(workflow.tasks));
    const selected = events.find((event) => event.type === 'strategy_selected');
    if (selected?.type === 'strategy_selected') log(`${workflow.name}: ${selected.strategy} — ${selected.reason}`);
    log(`  ${result.tasks.length} task(s), stop: ${result.stop.reason}`);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
