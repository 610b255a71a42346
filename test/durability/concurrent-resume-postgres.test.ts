// Two processes resuming the same crashed run at once on Postgres: the lease's compare-and-set
// on the server lets exactly one proceed; the other is refused `run_held`. (The SQLite case is
// test/durability/concurrent-resume.test.ts.)
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { postgresUrl } from '../support/postgres.js';
import { assertBuilt, newWorkDir, outcomeOf, spawnChild, withoutTimings } from './crash-harness.js';
import { dropSchemas, postgresCrashStore } from './crash-postgres-store.js';

describe('two processes resuming a crashed run at once on Postgres', () => {
  const workDirs: string[] = [];
  afterAll(async () => {
    await dropSchemas(postgresUrl(), workDirs);
    for (const workDir of workDirs) rmSync(workDir, { recursive: true, force: true });
  });

  it('lets exactly one proceed to the uninterrupted result; the other is refused run_held naming the holder', async () => {
    assertBuilt();
    const store = postgresCrashStore(postgresUrl());
    const workDir = newWorkDir();
    const baselineDir = newWorkDir();
    workDirs.push(workDir, baselineDir);
    const baseline = await spawnChild('start', baselineDir, { store }).exited;
    const expected = outcomeOf(baselineDir, baseline.pid);

    const killed = await spawnChild('start', workDir, { store, plan: { kind: 'model', occurrence: 2, delayUs: 5_000 } }).exited;
    expect(killed.signal).toBe('SIGKILL');

    const children = [spawnChild('resume', workDir, { store, waitForGo: true }), spawnChild('resume', workDir, { store, waitForGo: true })];
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
    // The stored history ends with the winner's stop.
    const state = await store.state(workDir);
    expect(state.events.filter((event) => event.type === 'workflow_end').map((event) => (event as { stop: { reason: string } }).stop.reason).at(-1)).toBe(expected.result.stop.reason);
  }, 90_000);
});
