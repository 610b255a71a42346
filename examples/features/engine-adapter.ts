/**
 * The EngineAdapter (docs/engine-adapter.md): the same scripted agent on the XState kernel
 * (`createEngine`) and on a plain `while` loop (`loopEngine`), the same events, the same answer.
 * Then a conversation saved from one adapter and continued in another.
 * Run: `npm run build && node dist/examples/features/engine-adapter.js`
 */
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { createEngine, defineTool, EngineError, loopEngine, type EngineAdapter, type EngineEvent } from '../../src/index.js';
import { scriptedModel, type ScriptStep } from '../../src/testing/index.js';

const weather = defineTool({ name: 'weather', description: 'The weather in a city.', parameters: z.object({ city: z.string() }), execute: ({ city }) => `${city}: 21°C` });
const script: ScriptStep[] = [
  { toolCalls: [{ name: 'weather', args: { city: 'Paris' } }] },
  { text: 'It is 21°C in Paris.', chunks: ['It is ', '21°C in Paris.'] },
  { text: 'Yes, take sunglasses.' },
];

function describeEvent(event: EngineEvent): string {
  switch (event.type) {
    case 'text_delta':
      return `text_delta[${event.turnIndex}] ${JSON.stringify(event.delta)}`;
    case 'tool_call_start':
      return `tool_call_start[${event.turnIndex}] ${event.name} ${JSON.stringify(event.args)}`;
    case 'tool_call_end':
      return `tool_call_end[${event.turnIndex}] ${event.name} -> ${JSON.stringify(event.result)}`;
    case 'turn_end':
      return `turn_end[${event.turnIndex}]`;
    case 'done':
      return `done ${event.output.stopReason}: ${event.output.text}`;
  }
}

export async function main(log: (line: string) => void = console.log): Promise<void> {
  const engines: EngineAdapter[] = [
    createEngine({ model: scriptedModel(script), tools: [weather] }),
    loopEngine({ model: scriptedModel(script), tools: [weather] }),
  ];
  for (const engine of engines) {
    for await (const event of engine.stream({ prompt: 'What is the weather in Paris?' })) log(`${engine.engineId}: ${describeEvent(event)}`);
  }

  // A saved conversation continues in a new adapter of the same engine...
  const saved = engines[1]!.saveState!();
  const resumed = loopEngine({ model: scriptedModel(script), tools: [weather] });
  resumed.loadState!(saved);
  for await (const event of resumed.stream({ prompt: 'Sunglasses?' })) if (event.type === 'done') log(`resumed loop: ${event.output.text}`);

  // ...and is refused by another engine, which names both.
  try {
    engines[0]!.loadState!(saved);
  } catch (error) {
    if (error instanceof EngineError) log(`refused: ${error.code}: ${error.message}`);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
