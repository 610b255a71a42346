import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { describe, expect, it } from 'vitest';
import { createKernel, memoryStore, postgresStore, sqliteStore, type AuditReport, type CheckpointStore } from 'dualloop';
import { scriptedModel } from 'dualloop/testing';
import { runCli } from '../cli/cli-process.js';
import { postgresUrl, sql, useSchemas } from '../support/postgres.js';
import { useTempDir } from '../store/temp-dir.js';

// Issue 15 item 11, DESIGN §12: a run whose records say it made progress while its history is gone
// is named damage (checkpoint_corrupt) on resume and in the audit, in every store; never a restart.

const directory = useTempDir();
const schemas = useSchemas('damage');

const DAMAGE = { name: 'RunError', code: 'checkpoint_corrupt', message: expect.stringContaining('not restarted from its first task') };

/** Three tasks: the first ends planner_stopped, the model fails on the second, so the run stops `error` (resumable) with one task done. */
async function stoppedAfterTaskOne(store: CheckpointStore): Promise<string> {
  const model = scriptedModel([{ text: 'one' }, { error: 'provider down' }]);
  const run = createKernel({ model, store }).start(['first', 'second', 'third']);
  const result = await run.result;
  expect(result.stop.reason).toBe('error');
  expect(result.tasks.map((task) => task.stop.reason)).toEqual(['planner_stopped', 'error']);
  return run.runId;
}

/** Resuming must refuse before any run starts: no model call, so no task restarted. */
async function expectResumeRefused(store: CheckpointStore, runId: string, detail: RegExp): Promise<void> {
  const again = scriptedModel([{ text: 'one again' }, { text: 'two again' }, { text: 'three again' }]);
  await expect(createKernel({ model: again, store }).resume(runId)).rejects.toMatchObject({ ...DAMAGE, message: expect.stringMatching(detail) });
  expect(again.calls).toHaveLength(0);
}

/** The audit still shows what is left, and lists the damage among the run's errors, named. */
function expectAuditNamesDamage(report: AuditReport | undefined, detail: RegExp): void {
  const damage = report?.errors.filter((error) => error.code === 'checkpoint_corrupt') ?? [];
  expect(damage).toHaveLength(1);
  expect(damage[0]).toMatchObject({ scope: 'checkpoint', message: expect.stringMatching(detail) });
}

describe('sqliteStore: progress on record, history gone', () => {
  const open = () => {
    const path = join(directory(), 'runs.db');
    return { path, store: sqliteStore({ path }) };
  };
  const remove = (path: string, tables: readonly string[]) => {
    const database = new DatabaseSync(path);
    database.exec(tables.map((table) => `DELETE FROM ${table};`).join(' '));
    database.close();
  };

  it('events, checkpoint entries and checkpoint results deleted, the results row kept (tasks_done=1): resume and audit name it', async () => {
    const { path, store } = open();
    const runId = await stoppedAfterTaskOne(store);
    store.close();
    remove(path, ['events', 'checkpoint_entries', 'checkpoint_results', 'leases']);
    const reopened = sqliteStore({ path });
    await expectResumeRefused(reopened, runId, /its saved result records 1 finished task\(s\) but the sqlite store holds no checkpoint and no event/);
    expectAuditNamesDamage(reopened.audit(runId), /records 1 finished task\(s\) but the sqlite store holds no checkpoint and no event/);
    reopened.close();
    const audit = await runCli(['audit', runId, '--store', path], { cwd: directory() });
    expect(audit.stdout).toMatch(/^errors\n {2}checkpoint\s+checkpoint_corrupt: run \S+: its saved result records 1 finished task/m);
  });

  it('the checkpoints alone deleted: the audit names it as the resume does', async () => {
    const { path, store } = open();
    const runId = await stoppedAfterTaskOne(store);
    store.close();
    remove(path, ['checkpoint_entries', 'checkpoint_results', 'leases']);
    const reopened = sqliteStore({ path });
    await expectResumeRefused(reopened, runId, /records \d+ saved checkpoint\(s\)/);
    expectAuditNamesDamage(reopened.audit(runId), /records \d+ saved checkpoint\(s\)/);
    reopened.close();
  });

  it('the latest checkpoints deleted, the first kept: not resumed from the earlier point (the second task is not run again)', async () => {
    const { path, store } = open();
    const runId = await stoppedAfterTaskOne(store);
    store.close();
    const database = new DatabaseSync(path);
    database.exec('DELETE FROM checkpoint_entries WHERE sequence > 1; DELETE FROM checkpoint_results WHERE sequence > 1; DELETE FROM leases;');
    database.close();
    const reopened = sqliteStore({ path });
    await expectResumeRefused(reopened, runId, /checkpoint\(s\) saved after the latest the sqlite store holds \(#1;/);
    expectAuditNamesDamage(reopened.audit(runId), /saved after the latest the sqlite store holds/);
    reopened.close();
  });

  it('a sound run still resumes and audits', async () => {
    const { store } = open();
    const runId = await stoppedAfterTaskOne(store);
    expect(store.audit(runId)).toMatchObject({ status: 'resumable', errors: [{ scope: 'model' }] });
    const result = await (await createKernel({ model: scriptedModel(() => ({ text: 'done' })), store }).resume(runId)).result;
    expect(result.stop.reason).toBe('goal_achieved');
    store.close();
  });
});

/**
 * A postgres run stopped after task one whose history `damage` (SQL on the run's schema) removes:
 * resume is refused with `refused`, and the audit names `audited` among its errors.
 */
async function expectPostgresDamageNamed(damage: (schema: string) => string, refused: RegExp, audited: RegExp): Promise<void> {
  const schema = schemas();
  const store = postgresStore({ connectionString: postgresUrl() }, { schema, maxConnections: 2 });
  try {
    const runId = await stoppedAfterTaskOne(store);
    await sql(damage(schema));
    await expectResumeRefused(store, runId, refused);
    expectAuditNamesDamage(await store.audit(runId), audited);
  } finally {
    await store.close();
  }
}

describe('postgresStore: progress on record, history gone', () => {
  it('events, checkpoint entries and checkpoint results deleted, the results row kept: resume and audit name it', async () => {
    await expectPostgresDamageNamed(
      (schema) => `DELETE FROM "${schema}".events; DELETE FROM "${schema}".checkpoint_results; DELETE FROM "${schema}".checkpoint_entries; UPDATE "${schema}".leases SET holder = NULL, expires_at = 0`,
      /its saved result records 1 finished task\(s\) but the postgres store holds no checkpoint and no event/,
      /records 1 finished task\(s\) but the postgres store holds no checkpoint and no event/,
    );
  });

  it('the checkpoints alone deleted: resume and audit name it', async () => {
    await expectPostgresDamageNamed(
      (schema) => `DELETE FROM "${schema}".checkpoint_results; DELETE FROM "${schema}".checkpoint_entries; UPDATE "${schema}".leases SET holder = NULL, expires_at = 0`,
      /records \d+ saved checkpoint\(s\)/,
      /records \d+ saved checkpoint\(s\)/,
    );
  });
});

describe('postgresStore: the latest checkpoints lost', () => {
  it('is named on resume and in the audit, not resumed from the earlier point', async () => {
    await expectPostgresDamageNamed(
      (schema) => `DELETE FROM "${schema}".checkpoint_results WHERE sequence > 1; DELETE FROM "${schema}".checkpoint_entries WHERE sequence > 1; UPDATE "${schema}".leases SET holder = NULL, expires_at = 0`,
      /checkpoint\(s\) saved after the latest the postgres store holds \(#1;/,
      /saved after the latest the postgres store holds/,
    );
  });
});

describe('a store that lost the history (memory store behind a damaged layer)', () => {
  it('a result with no events and no checkpoint: resume names it', async () => {
    const memory = memoryStore();
    const runId = await stoppedAfterTaskOne(memory);
    const lost: CheckpointStore = { ...memory, readEvents: () => [], loadCheckpoint: () => undefined, listCheckpoints: () => [] };
    await expectResumeRefused(lost, runId, /its saved result records 1 finished task\(s\) but the memory store holds no checkpoint and no event/);
  });
});
