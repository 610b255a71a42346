// Postgres down for longer than the store's `reconnectMs` (10 s) under a worker (ADR/0321), on a
// server of the test's own: the run in flight ends `error` naming the store, like a crash it is
// not the run's own end, so its slice is retried and, once the server is back, another slice
// resumes it from its last checkpoint and finishes it. Nothing the store acknowledged is lost; the
// tool whose result was not acknowledged runs again, once.
import { afterEach, expect, it } from 'vitest';
import { createWorker, postgresStore, submitRun, type KernelOptions, type PostgresStore, type SliceReport, type Worker } from 'dualloop';
import { scriptedModel } from 'dualloop/testing';
import { startOwnPostgres, type OwnPostgres } from '../support/postgres-server.js';
import { storedResult, workflowEnds } from './worker-support.js';
import { GATE_SCRIPT, gateTool } from '../support/kernel-fixtures.js';

let server: OwnPostgres | undefined;
let worker: Worker | undefined;
const stores: PostgresStore[] = [];
afterEach(async () => {
  await worker?.stop({ drain: false }).catch(() => undefined);
  for (const store of stores.splice(0)) await store.close().catch(() => undefined);
  await server?.stop();
  server = undefined;
});

/** Task 1 calls `gate`, which waits until the test opens it, then answers; task 2 answers. */
function gatedWorkflow() {
  const { tool, executions, open, inTool } = gateTool();
  const build = (): KernelOptions => ({ model: scriptedModel(GATE_SCRIPT), tools: [tool] });
  return { build, executions, open, inTool };
}

it('a run whose store was down past reconnectMs is retried by the worker and finishes from what was acknowledged', async () => {
  server = await startOwnPostgres();
  const place = { connectionString: server.url, schema: 'outage', queueSchema: 'outage_queue' };
  const { build, executions, open, inTool } = gatedWorkflow();
  const slices: SliceReport[] = [];
  // A short lease: the one the failed slice could not release expires soon after the restart.
  worker = createWorker({ ...place, workflows: { gated: build }, leaseMs: 1_000, retryDelaySeconds: 0, onSlice: (slice) => slices.push(slice) });
  await worker.start();
  await submitRun({ ...place, workflow: 'gated', tasks: ['use the gate', 'report'], runId: 'outage-run' });
  await inTool;
  const store = postgresStore({ connectionString: server.url }, { schema: 'outage' });
  stores.push(store);
  const acknowledged = { events: await store.readEvents('outage-run'), checkpoints: await store.listCheckpoints('outage-run') };
  await store.close();

  await server.halt();
  open();
  // Longer than the store's reconnectMs (10 s): the run in flight ends `error` naming the store.
  await new Promise((resolve) => setTimeout(resolve, 12_000));
  await server.restart();

  const later = postgresStore({ connectionString: server.url }, { schema: 'outage' });
  stores.push(later);
  const result = await storedResult(later, 'outage-run', (stored) => stored.stop.reason === 'goal_achieved', 60_000);
  expect(result.tasks.map((task) => task.output)).toEqual(['answer 1', 'answer 2']);
  // Its first result was never acknowledged: the tool ran again on the retried slice, once.
  expect(executions).toEqual(['first', 'first']);
  const events = await later.readEvents('outage-run');
  expect(events.slice(0, acknowledged.events.length)).toEqual(acknowledged.events);
  expect((await later.listCheckpoints('outage-run')).slice(0, acknowledged.checkpoints.length)).toEqual(acknowledged.checkpoints);
  expect((await workflowEnds(later, 'outage-run')).map((end) => end.stop.reason).at(-1)).toBe('goal_achieved');
  expect(slices.at(-1)).toMatchObject({ runId: 'outage-run', outcome: 'ended', stop: { reason: 'goal_achieved' } });
}, 120_000);
