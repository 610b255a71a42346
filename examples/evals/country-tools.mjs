// The tool of examples/evals/capitals.yaml (`tools.module`). In an eval with `tools: recorded` it
// never runs: its calls are answered from the recorded runs.
import { defineTool } from 'dualloop';
import { z } from 'zod';

const FACTS = {
  France: { capital: 'Paris', population: 68_400_000 },
  Japan: { capital: 'Tokyo', population: 124_000_000 },
  Peru: { capital: 'Lima', population: 34_000_000 },
};

export const countryFacts = defineTool({
  name: 'country_facts',
  description: 'Facts about a country: its capital and population.',
  parameters: z.object({ country: z.string() }),
  execute: ({ country }) => {
    const facts = FACTS[country];
    if (facts === undefined) throw new Error(`no facts for ${country}; known: ${Object.keys(FACTS).join(', ')}`);
    return facts;
  },
});
