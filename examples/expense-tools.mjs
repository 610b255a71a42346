// A tools module for examples/expense-report.yaml (`tools.module`): every export made with
// defineTool() becomes a tool of the run. Plain JavaScript, so `dualloop run` can import it as is.
import { defineTool } from 'dualloop';
import { z } from 'zod';

/** Fixed rates, so the example is reproducible; a real tool would call a rates service. */
const RATES = { 'EUR/USD': 1.08, 'EUR/GBP': 0.85, 'USD/EUR': 0.926 };

export const exchangeRate = defineTool({
  name: 'exchange_rate',
  description: 'Returns the exchange rate between two currencies (ISO 4217 codes), as units of `to` per unit of `from`.',
  parameters: z.object({ from: z.string().length(3), to: z.string().length(3) }),
  executionMode: 'parallel',
  execute: ({ from, to }) => {
    const pair = `${from.toUpperCase()}/${to.toUpperCase()}`;
    const rate = RATES[pair];
    if (rate === undefined) throw new Error(`no rate for ${pair}; known pairs: ${Object.keys(RATES).join(', ')}`);
    return { pair, rate, asOf: '2026-05-06' };
  },
});
