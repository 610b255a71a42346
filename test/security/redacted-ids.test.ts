import { describe, expect, it } from 'vitest';
import { ConfigError, createKernel, memoryStore } from 'dualloop';
import { scriptedModel } from 'dualloop/testing';

/*
 * ADR 0303: the stores file a run under its id, and the kernel's store redacts every string it
 * is handed. A short configured secret that occurs in a random run id (`abab` in a UUID) filed the
 * run under "[redacted]": `start` threw run_not_found. Generated ids are drawn again; chosen ones
 * are refused before anything is written.
 */

const model = () => scriptedModel(() => ({ text: 'done' }));

describe('run and task ids and the redactor', () => {
  it('a generated run id never holds a configured value: half of all ids would, none is used', async () => {
    // Every id whose first hex digit is 0–7 holds one of these values.
    const redact = Array.from({ length: 8 }, (_, digit) => `run-${digit}`);
    const store = memoryStore();
    const kernel = createKernel({ model: model(), store, redact });
    for (let count = 0; count < 12; count += 1) {
      const run = kernel.start(['go']);
      expect(run.runId).toMatch(/^run-[89a-f]/);
      expect((await run.result).stop.reason).toBe('goal_achieved');
      expect(await store.getRun(run.runId)).toMatchObject({ runId: run.runId });
    }
  });

  it('a value that matches every generated id, a chosen run id or a task id holding a secret: ConfigError before anything is written', async () => {
    const store = memoryStore();
    expect(() => createKernel({ model: model(), store, redact: ['run-'] }).start(['go'])).toThrow(/redact: a value matches every generated run id/);
    const kernel = createKernel({ model: model(), store, redact: ['hunter2-secret'] });
    expect(() => kernel.start(['go'], { runId: 'job-hunter2-secret-7' })).toThrow(ConfigError);
    expect(() => kernel.start(['go'], { runId: 'job-hunter2-secret-7' })).toThrow(/runId: contains a value the kernel redacts/);
    expect(() => kernel.start([{ id: 'hunter2-secret', description: 'go' }])).toThrow(/tasks\.0\.id: contains a value the kernel redacts/);
    await expect(kernel.fork('any', { at: { task: 1 }, runId: 'fork-hunter2-secret' })).rejects.toThrow(/runId: contains a value the kernel redacts/);
    expect(await store.listRuns()).toEqual([]);
  });
});
