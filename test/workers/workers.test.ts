import { afterEach, describe, expect, it } from 'vitest';
import { approveRun, cancelRun, ConfigError, createWorker, submitRun, type PolicyGate, type SliceReport, type Worker } from 'dualloop';
import { notingWorkflow, openStore, storedResult, usePlaces, workflowEnds } from './worker-support.js';

/*
 * Workers on pg-boss in one process (issue 19, ADR/0200–0202): slices, drain, parked runs,
 * poison runs, duplicate submissions and cancel, against the test run's Postgres.
 */

const place = usePlaces();
const started: Worker[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((worker) => worker.stop({ drain: false })));
});

function worker(options: Parameters<typeof createWorker>[0]): Worker {
  const made = createWorker(options);
  started.push(made);
  return made;
}

describe('createWorker / submitRun', () => {
  it('runs every submitted run once, spread over two workers, with no recorded tool executed twice', async () => {
    const where = place();
    const { build, executions } = notingWorkflow();
    const slices: SliceReport[] = [];
    await worker({ ...where, workflows: { noting: build }, concurrency: 2, workerId: 'one', onSlice: (slice) => slices.push(slice) }).start();
    await worker({ ...where, workflows: { noting: build }, concurrency: 2, workerId: 'two', onSlice: (slice) => slices.push(slice) }).start();

    const runIds = await Promise.all(Array.from({ length: 6 }, (_, index) => submitRun({ ...where, workflow: 'noting', tasks: ['first', 'second'], runId: `run-${index}` }).then((submitted) => submitted.runId)));
    const store = openStore(where);
    for (const runId of runIds) {
      const result = await storedResult(store, runId);
      expect(result.stop.reason).toBe('goal_achieved');
      expect(result.tasks.map((task) => task.output)).toEqual(['done 1', 'done 3']);
      expect(await workflowEnds(store, runId)).toHaveLength(1);
    }
    expect([...executions.values()].every((count) => count === 1)).toBe(true);
    expect(executions.size).toBe(12);
    while (slices.length < 6) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(slices.filter((slice) => slice.outcome === 'ended')).toHaveLength(6);
    await store.close();
  });

  it('stop({ drain: true }) hands a running run back at a turn boundary; another worker finishes it without re-running a tool', async () => {
    const where = place();
    const { build, executions } = notingWorkflow({ delayMs: 150 });
    const slices: SliceReport[] = [];
    const first = worker({ ...where, workflows: { noting: build }, workerId: 'first', onSlice: (slice) => slices.push(slice) });
    await first.start();
    const { runId } = await submitRun({ ...where, workflow: 'noting', tasks: ['a', 'b', 'c'] });
    const store = openStore(where);
    // Wait until the run is one turn in, then drain.
    for (let seen = 0; seen === 0; ) {
      seen = (await store.readEvents(runId)).filter((event) => event.type === 'checkpoint_saved').length;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await first.stop({ drain: true });
    expect(slices).toEqual([expect.objectContaining({ runId, workerId: 'first', outcome: 'suspended' })]);
    expect(await store.loadResult(runId)).toBeUndefined();
    expect(await workflowEnds(store, runId)).toHaveLength(0);

    await worker({ ...where, workflows: { noting: build }, workerId: 'second', onSlice: (slice) => slices.push(slice) }).start();
    const result = await storedResult(store, runId);
    expect(result.stop.reason).toBe('goal_achieved');
    expect(result.tasks.map((task) => task.output)).toEqual(['done 1', 'done 3', 'done 5']);
    while (slices.length < 2) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(slices.at(-1)).toMatchObject({ workerId: 'second', outcome: 'ended' });
    expect(await workflowEnds(store, runId)).toHaveLength(1);
    expect([...executions.values()]).toEqual([1, 1, 1]);
    await store.close();
  });

  it('a parked run holds no worker; approving it and submitting it again resumes it on some worker', async () => {
    const where = place();
    const policy: PolicyGate = { checkToolCall: (request) => (request.name === 'note' && request.args !== undefined && JSON.stringify(request.args).includes('step 2') ? { decision: 'require_approval', reason: 'the second note needs a human' } : { decision: 'allow' }) };
    const { build, executions } = notingWorkflow({ policy });
    const slices: SliceReport[] = [];
    await worker({ ...where, workflows: { noting: build }, concurrency: 1, onSlice: (slice) => slices.push(slice) }).start();
    const { runId } = await submitRun({ ...where, workflow: 'noting', tasks: ['first', 'second'] });
    const store = openStore(where);
    const parked = await storedResult(store, runId);
    expect(parked.stop.reason).toBe('awaiting_approval');
    // The result is stored before the slice's job completes.
    while (slices.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(slices).toEqual([expect.objectContaining({ outcome: 'ended', stop: expect.objectContaining({ reason: 'awaiting_approval' }) })]);

    // The worker (concurrency 1) is free: another run goes through while this one is parked.
    const other = await submitRun({ ...where, workflow: 'noting', tasks: ['x'] });
    await storedResult(store, other.runId, (result) => result.stop.reason === 'goal_achieved');

    await approveRun(store, runId, { answer: 'approve' });
    expect(await submitRun({ ...where, workflow: 'noting', runId })).toEqual({ runId, queued: true });
    const result = await storedResult(store, runId, (stored) => stored.stop.reason !== 'awaiting_approval');
    expect(result.stop.reason).toBe('goal_achieved');
    expect([...executions.entries()].filter(([key]) => key.startsWith(runId)).map(([, count]) => count)).toEqual([1, 1]);
    await store.close();
  });

  it('a run whose slices keep crashing is retried retryLimit times, then dead-lettered and ended error / worker_retries_exhausted', async () => {
    const where = place();
    let attempts = 0;
    const crashing = () => {
      attempts += 1;
      throw new Error('this workflow cannot be built');
    };
    await worker({ ...where, workflows: { crashing }, retryLimit: 1, retryDelaySeconds: 0 }).start();
    const { runId } = await submitRun({ ...where, workflow: 'crashing', tasks: ['never'] });
    const store = openStore(where);
    const result = await storedResult(store, runId);
    expect(result.stop).toMatchObject({ reason: 'error', detail: 'worker_retries_exhausted' });
    expect(attempts).toBe(2);
    expect((await store.listRuns()).find((run) => run.runId === runId)?.stop?.detail).toBe('worker_retries_exhausted');
    const audit = await store.audit(runId);
    expect(audit?.workflow.stop).toMatchObject({ reason: 'error', detail: 'worker_retries_exhausted' });
    expect(audit?.errors).toEqual([expect.objectContaining({ scope: 'worker' })]);
    const events = await store.readEvents(runId);
    expect(events.map((event) => event.type)).toEqual(['error', 'workflow_end']);
    expect(events[0]).toMatchObject({ scope: 'worker' });
    await store.close();
  });

  it('a duplicate submission of one runId runs it once', async () => {
    const where = place();
    const { build, executions } = notingWorkflow();
    const first = await submitRun({ ...where, workflow: 'noting', tasks: ['only'], runId: 'twice' });
    const second = await submitRun({ ...where, workflow: 'noting', tasks: ['only'], runId: 'twice' });
    expect(first).toEqual({ runId: 'twice', queued: true });
    expect(second).toEqual({ runId: 'twice', queued: false });
    // The same run id on another workflow would run it with other code: refused, nothing queued.
    const crossed = await submitRun({ ...where, workflow: 'other', tasks: ['only'], runId: 'twice' }).catch((error: unknown) => error);
    expect(crossed).toMatchObject({ code: 'run_exists', message: expect.stringContaining('workflow noting') });
    const crossedNext = await submitRun({ ...where, workflow: 'other', runId: 'twice' }).catch((error: unknown) => error);
    expect(crossedNext).toMatchObject({ code: 'run_exists' });
    await worker({ ...where, workflows: { noting: build }, concurrency: 2 }).start();
    const store = openStore(where);
    expect((await storedResult(store, 'twice')).stop.reason).toBe('goal_achieved');
    // Submitted again after it ended: a slice is queued, and finds nothing to do.
    await submitRun({ ...where, workflow: 'noting', tasks: ['only'], runId: 'twice' });
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(await workflowEnds(store, 'twice')).toHaveLength(1);
    expect([...executions.values()]).toEqual([1]);
    await store.close();
  });

  it('cancel from another process reaches the run on the worker running it; it is not run again', async () => {
    const where = place();
    const { build } = notingWorkflow({ delayMs: 300 });
    await worker({ ...where, workflows: { noting: build } }).start();
    const { runId } = await submitRun({ ...where, workflow: 'noting', tasks: ['a', 'b', 'c', 'd'] });
    const elsewhere = openStore(where);
    while ((await elsewhere.readEvents(runId)).length === 0) await new Promise((resolve) => setTimeout(resolve, 50));
    await cancelRun(elsewhere, runId, { reason: 'not needed' });
    const result = await storedResult(elsewhere, runId);
    expect(result.stop).toMatchObject({ reason: 'context_canceled' });
    expect(result.stop.detail).toContain('not needed');
    await submitRun({ ...where, workflow: 'noting', runId });
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect((await elsewhere.loadResult(runId))?.stop.reason).toBe('context_canceled');
    expect(await workflowEnds(elsewhere, runId)).toHaveLength(1);
    await elsewhere.close();
  });

  it('invalid options throw one ConfigError naming every bad field, before connecting', async () => {
    expect(() => createWorker({ connectionString: 'mysql://x', workflows: {}, concurrency: 0, heartbeatSeconds: 5 })).toThrow(ConfigError);
    try {
      createWorker({ connectionString: 'mysql://x', workflows: {}, concurrency: 0, heartbeatSeconds: 5 });
    } catch (error) {
      expect((error as ConfigError).issues.map((issue) => issue.path).sort()).toEqual(['concurrency', 'connectionString', 'heartbeatSeconds', 'workflows']);
    }
    await expect(submitRun({ connectionString: 'postgres://nowhere', workflow: 'has space', tasks: [] })).rejects.toMatchObject({ issues: [{ path: 'workflow' }, { path: 'tasks' }] });
  });
});
