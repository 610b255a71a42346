import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { postgresStore, sqliteStore, type CheckpointStore } from 'dualloop';
import { postgresUrl } from '../support/postgres.js';
import { assertBuilt, FENCED_CHILD, jsonLines, newWorkDir, outcomeOf, spawnChild, sqliteCrashStore, type CrashStore } from './crash-harness.js';
import { dropSchemas, postgresCrashStore, schemaOf } from './crash-postgres-store.js';

/*
 * Fenced leases (issue 18, ADR/0180): a holder stopped with SIGSTOP past its lease (1 s) loses the
 * run to a second process, which finishes it. Woken with SIGCONT, the first process must not get
 * a single write through: what the store holds after the second process ended does not change,
 * and the first ends locally with `error` / `lease_lost`.
 */

const RUN_ID = 'fenced-run';
/** How far into a 1 s model call of the fixture the holder is stopped: past the writes made as the call began. */
const STOP_INTO_CALL_MS = 300;

async function snapshot(store: CheckpointStore) {
  return {
    events: await store.readEvents(RUN_ID),
    checkpoints: await store.listCheckpoints(RUN_ID),
    result: await store.loadResult(RUN_ID),
    runs: await store.listRuns(),
  };
}

const stores: { crash: CrashStore; open: (workDir: string) => CheckpointStore }[] = [
  { crash: sqliteCrashStore, open: (workDir) => sqliteStore({ path: join(workDir, 'runs.db') }) },
  { crash: postgresCrashStore(postgresUrl()), open: (workDir) => postgresStore({ connectionString: postgresUrl() }, { schema: schemaOf(workDir) }) },
];

const workDirs: string[] = [];
afterAll(async () => {
  await dropSchemas(postgresUrl(), workDirs);
  for (const workDir of workDirs) rmSync(workDir, { recursive: true, force: true });
});

describe.each(stores)('fenced leases on $crash.name', ({ crash, open }) => {
  it('a holder stopped past its lease (SIGSTOP) and woken (SIGCONT) after another took over gets no write through and ends lease_lost', async () => {
    assertBuilt();
    const workDir = newWorkDir();
    workDirs.push(workDir);

    // Stopped inside task one's second model call (1 s), not inside a commit (see the fixture).
    const first = spawnChild('start', workDir, { store: crash, fixture: FENCED_CHILD });
    await first.line('model 1');
    await new Promise((resolve) => setTimeout(resolve, STOP_INTO_CALL_MS));
    first.process.kill('SIGSTOP');
    await new Promise((resolve) => setTimeout(resolve, 1_600)); // past the 1 s lease, by any clock

    const second = await spawnChild('resume', workDir, { store: crash, fixture: FENCED_CHILD }).exited;
    expect(second, second.stderr).toMatchObject({ code: 0, signal: null });
    const secondOutcome = outcomeOf(workDir, second.pid);
    if (!('result' in secondOutcome)) throw new Error(`the takeover was refused: ${secondOutcome.error.message}`);
    expect(secondOutcome.result.stop.reason).toBe('goal_achieved');

    const store = open(workDir);
    const before = await snapshot(store);
    const logBefore = jsonLines<{ id: number; outcome: string }>(workDir, `writes-${first.process.pid}.jsonl`);
    // A write issued before the stop may have committed before it (the server does not stop with
    // the process), its answer read only after SIGCONT: the unchanged snapshot covers those.
    const issuedBefore = new Set(logBefore.filter((write) => write.outcome === 'issued').map((write) => write.id));

    first.process.kill('SIGCONT');
    const woken = await first.exited;
    expect(woken, woken.stderr).toMatchObject({ code: 0, signal: null });
    const firstOutcome = outcomeOf(workDir, woken.pid);
    expect(firstOutcome).toMatchObject({ result: { stop: { reason: 'error', detail: 'lease_lost' } } });

    // Nothing of the first process reached the store after it was woken: the history is the second's.
    expect(await snapshot(store)).toEqual(before);
    expect(before.result).toEqual(JSON.parse(JSON.stringify(secondOutcome.result)));
    expect(before.events.at(-1)).toMatchObject({ type: 'workflow_end', stop: { reason: 'goal_achieved' } });
    // What the woken process still handed the store was refused for the lost lease (a write the
    // kernel itself held back after learning of the loss never reached the store at all). Events and
    // tool results the SQLite store queues are dropped when its queue is written, as the unchanged
    // log shows; checkpoints and results are committed (or refused) at the call.
    const after = jsonLines<{ id: number; method: string; outcome: string; code?: string }>(workDir, `writes-${first.process.pid}.jsonl`).slice(logBefore.length);
    for (const write of after.filter((item) => item.outcome === 'refused')) expect(write.code).toBe('lease_lost');
    const acceptedAfterWaking = after.filter((write) => write.outcome === 'accepted' && !issuedBefore.has(write.id));
    expect(acceptedAfterWaking.filter((write) => write.method === 'saveCheckpoint' || write.method === 'saveResult')).toEqual([]);
    await store.close?.();
  }, 60_000);

  it('a holder stopped (SIGSTOP) while its model call asks for a tool does not run that tool when woken after another took over', async () => {
    assertBuilt();
    const workDir = newWorkDir();
    workDirs.push(workDir);

    // Stopped inside task two's first model call (1 s), which answers with a call to `note`.
    const first = spawnChild('start', workDir, { store: crash, fixture: FENCED_CHILD });
    await first.line('model 2');
    await new Promise((resolve) => setTimeout(resolve, STOP_INTO_CALL_MS));
    first.process.kill('SIGSTOP');
    await new Promise((resolve) => setTimeout(resolve, 1_600)); // past the 1 s lease, by any clock

    const second = await spawnChild('resume', workDir, { store: crash, fixture: FENCED_CHILD }).exited;
    expect(second, second.stderr).toMatchObject({ code: 0, signal: null });
    expect(outcomeOf(workDir, second.pid)).toMatchObject({ result: { stop: { reason: 'goal_achieved' } } });
    const executedBefore = jsonLines<{ toolCallId: string }>(workDir, 'executions.jsonl');

    // Woken, its model call answers at once with the tool call the second process already ran and
    // recorded: it must learn that it lost the run before it runs the tool (ADR/0320).
    first.process.kill('SIGCONT');
    const woken = await first.exited;
    expect(woken, woken.stderr).toMatchObject({ code: 0, signal: null });
    expect(outcomeOf(workDir, woken.pid)).toMatchObject({ result: { stop: { reason: 'error', detail: 'lease_lost' } } });
    expect(jsonLines<{ toolCallId: string }>(workDir, 'executions.jsonl')).toEqual(executedBefore);
    const calls = executedBefore.map((execution) => execution.toolCallId);
    expect(calls).toHaveLength(3);
    expect(new Set(calls).size).toBe(3);
  }, 60_000);
});
