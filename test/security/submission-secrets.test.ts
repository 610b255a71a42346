import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, createWorker, submitRun, type Worker } from 'dualloop';
import { sql } from '../support/postgres.js';
import { notingWorkflow, openStore, storedResult, usePlaces } from '../workers/worker-support.js';

/*
 * Issue 15 item 1, ADR 0305: a run submitted to the workers' queue keeps its tasks in the store
 * (`submissions`) and in the pg-boss job until it runs. They are redacted before either is
 * written — key-shaped tokens always, the `redact` values given — and the worker runs them so.
 */

const CONFIGURED = 'Kv7:deploy-password-only';
const TOKEN = 'ghp_0123456789abcdefABCDEF0123456789ab';

const place = usePlaces();
const started: Worker[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((worker) => worker.stop({ drain: false })));
});

/** Every row of both schemas (the store's and pg-boss's), as text. */
async function schemasText(schemas: readonly string[]): Promise<string> {
  const rows: unknown[] = [];
  for (const schema of schemas) {
    const tables = await sql<{ table_name: string }>("SELECT table_name FROM information_schema.tables WHERE table_schema = $1 AND table_type = 'BASE TABLE'", [schema]);
    for (const { table_name } of tables) rows.push(await sql(`SELECT * FROM "${schema}"."${table_name}"`));
  }
  return JSON.stringify(rows, (_key, value: unknown) => (typeof value === 'bigint' ? String(value) : value));
}

describe('submitRun', () => {
  it('stores and queues the tasks redacted, and the worker runs them as stored', async () => {
    const where = place();
    const { runId } = await submitRun({ ...where, workflow: 'noting', tasks: [`deploy with ${CONFIGURED}`, `then push with ${TOKEN}`], redact: [CONFIGURED] });

    const queued = await schemasText([where.schema, where.queueSchema]);
    expect(queued).toContain('deploy with [redacted]');
    expect(queued).not.toContain(CONFIGURED);
    expect(queued).not.toContain(TOKEN);

    const { build } = notingWorkflow();
    const worker = createWorker({ ...where, workflows: { noting: build } });
    started.push(worker);
    await worker.start();
    const store = openStore(where);
    const result = await storedResult(store, runId);
    expect(result.stop.reason).toBe('goal_achieved');
    const events = await store.readEvents(runId);
    const start = events.find((event) => event.type === 'workflow_start');
    expect(start?.type === 'workflow_start' && start.tasks.map((task) => task.description)).toEqual(['deploy with [redacted]', 'then push with [redacted]']);
    await store.close();
    const after = await schemasText([where.schema, where.queueSchema]);
    expect(after).not.toContain(CONFIGURED);
    expect(after).not.toContain(TOKEN);
  });

  it('refuses a redact value too short to be a secret, before touching the database', async () => {
    const attempt = submitRun({ ...place(), workflow: 'noting', tasks: ['x'], redact: ['abc'] });
    await expect(attempt).rejects.toThrow(ConfigError);
    await expect(attempt).rejects.toMatchObject({ issues: [{ path: 'redact.0' }] });
  });
});
