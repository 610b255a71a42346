// Records the three runs that examples/evals/suite.yaml replays (docs/evals.md): your application
// records runs like these whenever it starts one on a store; here a scripted model stands for the
// model in production. Usage: node examples/evals/record.mjs [store] (default .dualloop/runs.db).
import { argv } from 'node:process';
import { pathToFileURL } from 'node:url';
import { createKernel, sqliteStore } from 'dualloop';
import { scriptedModel } from 'dualloop/testing';
import { countryFacts } from './country-tools.mjs';

const CAPITALS = { france: ['France', 'Paris'], japan: ['Japan', 'Tokyo'], peru: ['Peru', 'Lima'] };

/** Looks the country up, then names the capital it read. */
const baseline = () =>
  scriptedModel((call) => {
    const [country, capital] = CAPITALS[call.taskId];
    if (call.turn === 1) return { toolCalls: [{ name: 'country_facts', args: { country } }], usage: { inputTokens: 120, outputTokens: 18 }, costUsd: 0.0002 };
    return { text: capital, usage: { inputTokens: 160, outputTokens: 2 }, costUsd: 0.0002 };
  });

/** Runs each question as its own run on `store`: capital-france, capital-japan, capital-peru. */
export async function recordCapitals(store) {
  const kernel = createKernel({ name: 'capitals', model: baseline(), tools: [countryFacts], store, system: "Answer with the city's name only. Look it up with country_facts first." });
  const results = [];
  for (const [id, [country]] of Object.entries(CAPITALS)) {
    const result = await kernel.start([{ id, description: `What is the capital of ${country}?` }], { runId: `capital-${id}` }).result;
    results.push(`capital-${id}: ${result.stop.reason}, answered ${result.tasks[0].output}`);
  }
  return results;
}

if (argv[1] !== undefined && import.meta.url === pathToFileURL(argv[1]).href) {
  const store = sqliteStore({ path: argv[2] ?? '.dualloop/runs.db' });
  for (const line of await recordCapitals(store)) console.log(line);
  store.close();
}
