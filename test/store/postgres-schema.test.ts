import { describe, expect, it } from 'vitest';
import { ConfigError, postgresStore, StoreError } from 'dualloop';
import { postgresUrl, sql, useSchemas } from '../support/postgres.js';
import { runRecord } from './builders.js';
import { failureOf } from './conformance.js';

const schema = useSchemas('schema');

describe('postgresStore: the schema', () => {
  it('creates and versions its schema, and two stores opening it at once migrate it once', async () => {
    const name = schema();
    const stores = [0, 1, 2].map(() => postgresStore({ connectionString: postgresUrl() }, { schema: name, maxConnections: 2 }));
    await Promise.all(stores.map((store) => store.ready()));
    expect(await sql(`SELECT application, version FROM "${name}".dualloop_schema`)).toEqual([{ application: 'dualloop', version: 7 }]);
    await stores[0]!.createRun(runRecord('run-a'));
    expect(await stores[2]!.getRun('run-a')).toEqual(runRecord('run-a'));
    for (const store of stores) await store.close();
  });

  it('refuses, without changing it, a schema a newer dualloop wrote', async () => {
    const name = schema();
    const first = postgresStore({ connectionString: postgresUrl() }, { schema: name });
    await first.createRun(runRecord('run-a'));
    await first.close();
    await sql(`UPDATE "${name}".dualloop_schema SET version = 99`);
    const store = postgresStore({ connectionString: postgresUrl() }, { schema: name });
    const error = await failureOf(() => store.getRun('run-a'));
    expect(error).toBeInstanceOf(StoreError);
    expect(error).toMatchObject({ code: 'store_future_schema' });
    expect(error.message).toContain('schema version 99');
    expect(error.message).not.toContain(postgresUrl().split('@')[0]!.split(':')[2]!);
    await store.close();
    expect(await sql(`SELECT version FROM "${name}".dualloop_schema`)).toEqual([{ version: 99 }]);
    expect(await sql(`SELECT run_id FROM "${name}".runs`)).toEqual([{ run_id: 'run-a' }]);
  });

  it('refuses a schema of another application and writes nothing to it', async () => {
    const name = schema();
    await sql(`CREATE SCHEMA "${name}"; CREATE TABLE "${name}".orders (id int)`);
    const store = postgresStore({ connectionString: postgresUrl() }, { schema: name });
    const error = await failureOf(() => store.createRun(runRecord('run-a')));
    expect(error).toMatchObject({ code: 'store_not_dualloop' });
    expect(error.message).toContain('orders');
    await store.close();
    expect(await sql(`SELECT tablename FROM pg_tables WHERE schemaname = $1`, [name])).toEqual([{ tablename: 'orders' }]);
  });

  it('names every bad option before connecting', () => {
    const error = (() => {
      try {
        postgresStore({} as never, { schema: 'bad schema;', maxConnections: 0 });
      } catch (caught) {
        return caught as ConfigError;
      }
      throw new Error('expected a ConfigError');
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.issues.map((issue) => issue.path)).toEqual(['connection', 'schema', 'maxConnections']);
  });

  it('refuses a URL of another database before connecting, naming its scheme but nothing else of it', () => {
    const attempt = () => postgresStore({ connectionString: 'mysql://app:s3cret-pw@db.example:3306/app' });
    expect(attempt).toThrow(ConfigError);
    expect(attempt).toThrow('connectionString: must be a postgres:// or postgresql:// URL, not mysql://');
    expect(attempt).not.toThrow(/s3cret/);
    expect(() => postgresStore({ connectionString: 'postgresql://localhost/x' })).not.toThrow();
  });

  it('reports a server it cannot reach as a StoreError naming the database but not the password', async () => {
    const store = postgresStore({ connectionString: 'postgres://someone:s3cret-pw@127.0.0.1:1/nowhere' });
    const error = await failureOf(() => store.listRuns());
    expect(error).toBeInstanceOf(StoreError);
    expect(error).toMatchObject({ code: 'store_failed' });
    expect(error.message).toContain('postgres://127.0.0.1:1/nowhere');
    expect(error.message).not.toContain('s3cret-pw');
    await store.close();
  });
});

describe('postgresStore: migrating a version 1 schema', () => {
  it('adds the followers table of version 2, the submissions table of version 3, the parent columns of version 4 and the fingerprint of version 5, and keeps the runs', async () => {
    const name = schema();
    const first = postgresStore({ connectionString: postgresUrl() }, { schema: name });
    await first.createRun(runRecord('run-a'));
    await first.close();
    // What dualloop with only migration 1 left behind.
    await sql(
      `DROP TABLE "${name}".rate_starts; DROP TABLE "${name}".rate_keys; DROP TABLE "${name}".followers; DROP TABLE "${name}".submissions; ALTER TABLE "${name}".runs DROP COLUMN parent_run_id, DROP COLUMN parent_tool_call_id, DROP COLUMN fingerprint, DROP COLUMN eval_of_run_id, DROP COLUMN eval_of_suite; UPDATE "${name}".dualloop_schema SET version = 1`,
    );
    const store = postgresStore({ connectionString: postgresUrl() }, { schema: name });
    expect(await store.getRun('run-a')).toEqual(runRecord('run-a'));
    expect(await sql(`SELECT version FROM "${name}".dualloop_schema`)).toEqual([{ version: 7 }]);
    expect(await sql(`SELECT count(*)::int AS rows FROM "${name}".rate_keys`)).toEqual([{ rows: 0 }]);
    expect(await sql(`SELECT count(*)::int AS rows FROM "${name}".followers`)).toEqual([{ rows: 0 }]);
    expect(await sql(`SELECT count(*)::int AS rows FROM "${name}".submissions`)).toEqual([{ rows: 0 }]);
    expect(await sql(`SELECT count(*)::int AS rows FROM "${name}".runs WHERE parent_run_id IS NULL`)).toEqual([{ rows: 1 }]);
    await store.close();
  });
});
