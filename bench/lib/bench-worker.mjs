/**
 * A worker process of the workers figure (started by bench/workers.mjs):
 *   node bench/lib/bench-worker.mjs '<json spec>'
 * spec: { url, schema, queueSchema, concurrency, delayMs, workerId }.
 * Takes slices of the queue of workflow `bench`: the bench workload (10 turns, `add`) on a
 * scripted model that takes `delayMs` per call. Every slice waits at its start until stdin says
 * `go`, so that all workers begin together; prints `ready` once taking slices and `slice <json>`
 * per slice that ended; on SIGTERM stops (drain) and exits 0.
 */
import { benchKernelOptions, loadDualloop } from '../systems/dualloop-common.mjs';
import { delayedPacer } from './workload.mjs';

const spec = JSON.parse(process.argv[2] ?? '{}');
const { createWorker } = await loadDualloop();
let go;
const started = new Promise((resolve) => (go = resolve));
process.stdin.setEncoding('utf8').on('data', (chunk) => {
  if (chunk.includes('go')) go();
});
// The model answers from the transcript and the tool is pure: one set of options serves every run.
const options = await benchKernelOptions({ pacer: delayedPacer(spec.delayMs) });
const worker = createWorker({
  connectionString: spec.url,
  schema: spec.schema,
  queueSchema: spec.queueSchema,
  workflows: {
    bench: async () => {
      await started;
      return options;
    },
  },
  workerId: spec.workerId,
  concurrency: spec.concurrency,
  onSlice: (slice) => process.stdout.write(`slice ${JSON.stringify(slice)}\n`),
});
process.once('SIGTERM', () => {
  void worker.stop({ drain: true }).then(
    () => process.exit(0),
    () => process.exit(1),
  );
});
await worker.start();
process.stdout.write('ready\n');
