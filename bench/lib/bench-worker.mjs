/**
 * A worker process of the workers and fleet figures (started through lib/worker-process.mjs):
 *   node bench/lib/bench-worker.mjs '<json spec>'
 * spec: { url, schema, queueSchema, concurrency, delayMs, workerId, gate?, countCheckpoints? }.
 * Takes slices of the queue of workflow `bench`: the bench workload (10-turn tasks, `add`) on a
 * scripted model that takes `delayMs` per call, a run's tool call ids unique across its tasks.
 * With `gate`, every slice waits at its start until stdin says `go`, so that all workers begin
 * together. Prints `ready` once taking slices and `slice <json>` per slice that ended; stdin
 * `stats` prints `stats <json>`: slices started and ended, runs whose slice has reached a model
 * call (`calling`), and — with `countCheckpoints`, through
 * a logger that counts the kernel's `checkpoint_saved` events — the checkpoints acknowledged, with
 * the process's CPU time. On SIGTERM stops (drain) and exits 0.
 */
import { createInterface } from 'node:readline';
import { benchKernelOptions, loadDualloop } from '../systems/dualloop-common.mjs';
import { delayedPacer } from './workload.mjs';

const spec = JSON.parse(process.argv[2] ?? '{}');
const { createWorker } = await loadDualloop();
const counts = { started: 0, ended: 0, checkpoints: 0, stops: {} };
let go;
const started = spec.gate === true ? new Promise((resolve) => (go = resolve)) : Promise.resolve();
createInterface({ input: process.stdin }).on('line', (line) => {
  if (line === 'go') go?.();
  else if (line === 'stats') {
    const cpu = process.cpuUsage();
    process.stdout.write(`stats ${JSON.stringify({ ...counts, calling: calling.size, at: performance.now(), cpuUs: cpu.user + cpu.system, rssBytes: process.memoryUsage.rss() })}\n`);
  }
});

const base = await benchKernelOptions({ pacer: delayedPacer(spec.delayMs) });
/** Runs whose slice has reached a model call (a resumed run has loaded and taken its lease by then). */
const calling = new Set();
// A run of many tasks: the script restarts with each task's transcript; its call ids must not repeat.
const modelOf = (runId) => ({
  ...base.model,
  async call(request) {
    calling.add(runId);
    const answer = await base.model.call(request);
    return answer.toolCalls.length === 0 ? answer : { ...answer, toolCalls: answer.toolCalls.map((call) => ({ ...call, id: `${request.taskId}-${call.id}` })) };
  },
});
const countingLogger = {
  child: () => countingLogger,
  info(line) {
    if (line.event?.type === 'checkpoint_saved') counts.checkpoints += 1;
  },
  debug() {},
  warn() {},
  error() {},
};
// The model answers from the transcript and the tool is pure: the options differ by run only in
// the model's note of which run calls it.
const options = { ...base, bounds: { ...base.bounds, outer: { maxWorkflowSteps: 1000 } }, ...(spec.countCheckpoints === true ? { logger: countingLogger } : {}) };
const worker = createWorker({
  connectionString: spec.url,
  schema: spec.schema,
  queueSchema: spec.queueSchema,
  workflows: {
    bench: async (run) => {
      counts.started += 1;
      await started;
      return { ...options, model: modelOf(run.runId) };
    },
  },
  workerId: spec.workerId,
  concurrency: spec.concurrency,
  onSlice: (slice) => {
    counts.ended += 1;
    calling.delete(slice.runId);
    const key = slice.stop === undefined ? slice.outcome : `${slice.outcome}: ${slice.stop.reason}${slice.stop.reason === 'error' ? ` (${slice.stop.detail.slice(0, 80)})` : ''}`;
    counts.stops[key] = (counts.stops[key] ?? 0) + 1;
    process.stdout.write(`slice ${JSON.stringify(slice)}\n`);
  },
});
process.once('SIGTERM', () => {
  void worker.stop({ drain: true }).then(
    () => process.exit(0),
    () => process.exit(1),
  );
});
await worker.start();
process.stdout.write('ready\n');
