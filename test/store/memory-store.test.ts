import { describe, expect, it } from 'vitest';
import { ConfigError, memoryStore } from 'dualloop';
import { describeCheckpointStore } from './conformance.js';
import { runRecord, workflowResult } from './builders.js';

describeCheckpointStore('memoryStore', () => memoryStore());

describe('memoryStore retention', () => {
  it('keeps at most maxFinishedRuns finished runs, dropping the one that finished first', () => {
    const store = memoryStore({ maxFinishedRuns: 2 });
    for (const runId of ['a', 'b', 'c']) store.createRun(runRecord(runId));
    store.saveResult(workflowResult('b'));
    store.saveResult(workflowResult('a'));
    store.saveResult(workflowResult('c'));
    expect(store.getRun('b')).toBeUndefined();
    expect(store.loadResult('b')).toBeUndefined();
    expect([store.getRun('a')?.runId, store.getRun('c')?.runId]).toEqual(['a', 'c']);
  });

  it('never drops a running run or one stopped resumably', () => {
    const store = memoryStore({ maxFinishedRuns: 0 });
    for (const runId of ['running', 'parked', 'done']) store.createRun(runRecord(runId));
    store.saveResult(workflowResult('parked', 'awaiting_approval'));
    store.saveResult(workflowResult('done', 'goal_achieved'));
    expect(store.getRun('running')).toBeDefined();
    expect(store.getRun('parked')).toBeDefined();
    expect(store.getRun('done')).toBeUndefined();
  });

  it('counts a parked run once it finishes after a resume', () => {
    const store = memoryStore({ maxFinishedRuns: 1 });
    for (const runId of ['parked', 'other']) store.createRun(runRecord(runId));
    store.saveResult(workflowResult('parked', 'awaiting_approval'));
    store.saveResult(workflowResult('other'));
    store.saveResult(workflowResult('parked'));
    expect(store.getRun('other')).toBeUndefined();
    expect(store.getRun('parked')).toBeDefined();
  });

  it('keeps 1000 finished runs by default, and everything with Infinity', () => {
    const bounded = memoryStore();
    const unbounded = memoryStore({ maxFinishedRuns: Number.POSITIVE_INFINITY });
    for (let index = 0; index < 1001; index += 1) {
      for (const store of [bounded, unbounded]) {
        store.createRun(runRecord(`run-${index}`));
        store.saveResult(workflowResult(`run-${index}`));
      }
    }
    expect(bounded.getRun('run-0')).toBeUndefined();
    expect(bounded.getRun('run-1')).toBeDefined();
    expect(unbounded.getRun('run-0')).toBeDefined();
  });

  it('refuses a limit that is not a non-negative integer', () => {
    for (const maxFinishedRuns of [-1, 1.5, Number.NaN]) {
      expect(() => memoryStore({ maxFinishedRuns })).toThrow(ConfigError);
    }
  });
});
