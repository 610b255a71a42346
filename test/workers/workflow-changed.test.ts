import { afterEach, describe, expect, it } from 'vitest';
import { approveRun, createWorker, submitRun, type KernelOptions, type PolicyGate, type Worker } from 'dualloop';
import { scriptedModel } from 'dualloop/testing';
import { openStore, storedResult, usePlaces } from './worker-support.js';
import { queueNextSlice } from '../../src/workers/continue-run.js';

/* A worker that takes up a run its deployed workflow no longer matches does not retry it: the run
 * ends `error` / `workflow_changed` naming each change, for an operator to accept. */

const place = usePlaces();
const started: Worker[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((worker) => worker.stop({ drain: false })));
});

const approvals: PolicyGate = { checkTask: () => ({ decision: 'require_approval', reason: 'a human starts it' }) };

describe('a changed workflow on workers', () => {
  it('ends the run error / workflow_changed with the changes, instead of retrying it', async () => {
    const where = place();
    const before = (): KernelOptions => ({ model: scriptedModel([{ text: 'done' }], { modelId: 'v1' }), policy: approvals });
    const first = createWorker({ ...where, workflows: { job: before }, workerId: 'v1' });
    started.push(first);
    await first.start();
    const { runId } = await submitRun({ ...where, workflow: 'job', tasks: ['do it'] });
    const store = openStore(where);
    expect((await storedResult(store, runId)).stop.reason).toBe('awaiting_approval');
    await first.stop({ drain: false });
    started.splice(0);

    // The deploy changed the model; the approval queues the next slice.
    const after = (): KernelOptions => ({ model: scriptedModel([{ text: 'done' }], { modelId: 'v2' }), policy: approvals });
    const second = createWorker({ ...where, workflows: { job: after }, workerId: 'v2' });
    started.push(second);
    await second.start();
    await approveRun(store, runId, { callId: 'task:task-1', answer: 'approve' });
    await queueNextSlice(where, runId);
    const ended = await storedResult(store, runId, (result) => result.stop.reason === 'error');
    expect(ended.stop).toMatchObject({ reason: 'error', code: 'workflow_changed' });
    expect(ended.stop.detail).toContain('model scripted/v1 → scripted/v2');
    await store.close();
  });
});
