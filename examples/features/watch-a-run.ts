/**
 * Watching a run from the API (docs/viewer.md): the local viewer on the run's store, and the
 * Stately inspector through the kernel's `inspect` option. Both listen on 127.0.0.1.
 * Run: `npm run build && node dist/examples/features/watch-a-run.js --wait` (Ctrl-C to stop)
 */
import { fileURLToPath } from 'node:url';
import { createKernel, memoryStore } from '../../src/index.js';
import { createStatelyInspector } from '../../src/inspect/index.js';
import { startViewer } from '../../src/viewer/index.js';
import { scriptedModel } from '../../src/testing/index.js';

export async function main(log: (line: string) => void = console.log, keepServing?: Promise<unknown>): Promise<void> {
  const store = memoryStore();
  // No `url`: a local page embeds the hosted inspector (the browser needs internet for it).
  // With `url: 'ws://127.0.0.1:8080'` the events go to that WebSocket receiver instead.
  const inspector = await createStatelyInspector();
  const viewer = await startViewer({ store });
  const model = scriptedModel([{ text: 'Paris.', usage: { inputTokens: 12, outputTokens: 2 } }]);
  const run = createKernel({ model, store, inspect: inspector.inspect }).start(['What is the capital of France?']);
  log(`viewer: ${viewer.urlFor(run.runId)}`);
  log(`Stately inspector page: ${inspector.url}`);
  const result = await run.result;
  log(`stop: ${result.stop.reason}`);
  await keepServing;
  await Promise.all([viewer.close(), inspector.close()]);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const interrupted = process.argv.includes('--wait') ? new Promise((resolve) => process.once('SIGINT', resolve)) : undefined;
  await main(console.log, interrupted);
}
