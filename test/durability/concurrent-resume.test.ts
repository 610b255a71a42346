import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createKernel, RunError, sqliteStore, type WorkflowRun } from 'dualloop';
import { collectRun, manualClock, scriptedModel, type Script } from 'dualloop/testing';
import { useTempDir } from '../store/temp-dir.js';
import { assertBuilt, newWorkDir, outcomeOf, spawnChild, withoutTimings } from './crash-harness.js';

const T0 = 1_700_000_000_000;
const directory = useTempDir('dualloop-lease-');

// Every answer waits a little, so that a run is still going when the second resume arrives.
const SCRIPT: Script = ({ index }) => ({ text: `answer ${index}`, delayMs: 30 });

function kernelAt(path: string, now: number) {
  const store = sqliteStore({ path });
  return { store, kernel: createKernel({ model: scriptedModel(SCRIPT), store, clock: manualClock(now) }) };
}

/** A run of three tasks stopped by an abort during its first task: resumable, lease released. */
async function abortedRun(path: string, runId: string): Promise<void> {
  const { store, kernel } = kernelAt(path, T0);
  const run = kernel.start(['one', 'two', 'three'], { runId });
  setTimeout(() => run.abort('stopping for the test'), 10);
  const { result } = await collectRun(run);
  expect(result.stop.reason).toBe('context_canceled');
  store.close();
}

function heldRejection(outcome: PromiseSettledResult<WorkflowRun>): RunError {
  if (outcome.status !== 'rejected') throw new Error('expected this resume to be refused');
  return outcome.reason as RunError;
}

describe('two resumes of the same run at once', () => {
  it('in one process, two kernels on two connections: exactly one proceeds, the other is told who holds the run', async () => {
    const path = join(directory(), 'runs.db');
    await abortedRun(path, 'shared-run');
    const first = kernelAt(path, T0 + 1_000);
    const second = kernelAt(path, T0 + 1_000);
    const attempts = await Promise.allSettled([first.kernel.resume('shared-run'), second.kernel.resume('shared-run')]);
    const winners = attempts.filter((attempt): attempt is PromiseFulfilledResult<WorkflowRun> => attempt.status === 'fulfilled');
    expect(winners).toHaveLength(1);
    const refused = heldRejection(attempts.find((attempt) => attempt.status === 'rejected')!);
    expect(refused).toBeInstanceOf(RunError);
    expect(refused).toMatchObject({ code: 'run_held', runId: 'shared-run' });
    expect(refused.message).toMatch(/run shared-run is held by \S+/);
    const { result } = await collectRun(winners[0]!.value);
    expect(result.stop.reason).toBe('goal_achieved');
    expect(result.tasks.map((task) => task.output)).toHaveLength(3);
    first.store.close();
    second.store.close();
  });

  it('a dead holder on another host blocks a resume only until its lease expires (by the store clock)', async () => {
    const path = join(directory(), 'runs.db');
    await abortedRun(path, 'orphan-run');
    const planted = sqliteStore({ path });
    expect(planted.acquireLease('orphan-run', 'crashed-host/pid-4242/abcd', 1_000)).toMatchObject({ acquired: true });
    planted.close();

    const early = kernelAt(path, T0 + 11_000);
    const error = await early.kernel.resume('orphan-run').then(
      () => undefined,
      (thrown: unknown) => thrown as RunError,
    );
    expect(error).toMatchObject({ name: 'RunError', code: 'run_held', message: expect.stringContaining('held by crashed-host/pid-4242/abcd') });
    expect(error?.message).toMatch(/lease expires in [01] s/);
    early.store.close();

    await new Promise((resolve) => setTimeout(resolve, 1_200));
    const late = kernelAt(path, T0 + 31_000);
    const { result } = await collectRun(await late.kernel.resume('orphan-run'));
    expect(result.stop.reason).toBe('goal_achieved');
    late.store.close();
  });
});

describe('two processes resuming a crashed run at once', () => {
  const workDirs: string[] = [];
  afterAll(() => {
    for (const workDir of workDirs) rmSync(workDir, { recursive: true, force: true });
  });

  it('lets exactly one proceed; the other exits with "run is held by …"', async () => {
    assertBuilt();
    const workDir = newWorkDir();
    workDirs.push(workDir);
    const baselineDir = newWorkDir();
    workDirs.push(baselineDir);
    const baseline = await spawnChild('start', baselineDir).exited;
    const expected = outcomeOf(baselineDir, baseline.pid);

    const killed = await spawnChild('start', workDir, { plan: { kind: 'model', occurrence: 2, delayUs: 5_000 } }).exited;
    expect(killed.signal).toBe('SIGKILL');

    const children = [spawnChild('resume', workDir, { waitForGo: true }), spawnChild('resume', workDir, { waitForGo: true })];
    await Promise.all(children.map((child) => child.line('ready')));
    for (const child of children) child.process.stdin?.write('go\n');
    const exits = await Promise.all(children.map((child) => child.exited));
    for (const exit of exits) expect(exit, exit.stderr).toMatchObject({ code: 0, signal: null });

    const outcomes = exits.map((exit) => outcomeOf(workDir, exit.pid));
    const proceeded = outcomes.filter((outcome) => 'result' in outcome);
    const refused = outcomes.filter((outcome) => 'error' in outcome);
    expect(proceeded).toHaveLength(1);
    expect(refused).toEqual([{ error: { code: 'run_held', message: expect.stringMatching(/^run crash-run is held by \S+/) } }]);
    if (!('result' in expected)) throw new Error('the uninterrupted run failed');
    expect(withoutTimings(proceeded[0])).toEqual(withoutTimings({ result: expected.result }));
  }, 90_000);
});
