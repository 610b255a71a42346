// Event notifications of the Postgres store (ADR/0186): a write notifies only while the run has a
// follower, with `<run key>:<seq>` as payload. Notifications arrive in commit order, so the first
// one a test LISTENer receives tells which writes notified.
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { postgresStore } from 'dualloop';
import { postgresUrl, sql, useSchemas } from '../support/postgres.js';
import { event, runRecord } from './builders.js';

const schema = useSchemas('notify');

describe('postgresStore: event notifications', () => {
  it('notifies `<run key>:<seq>` for writes of a followed run only, and stops when the follower leaves', async () => {
    const name = schema();
    const store = postgresStore({ connectionString: postgresUrl() }, { schema: name });
    await store.createRun(runRecord('followed'));
    const listener = new pg.Client({ connectionString: postgresUrl() });
    await listener.connect();
    const payloads: string[] = [];
    let arrived: () => void = () => undefined;
    listener.on('notification', (message) => {
      payloads.push(message.payload ?? '');
      arrived();
    });
    await listener.query(`LISTEN "dualloop_events_${name}"`);
    const next = () => new Promise<void>((resolve) => (payloads.length > 0 ? resolve() : (arrived = resolve)));
    const key = Number((await sql<{ id: string }>(`SELECT id FROM "${name}".runs WHERE run_id = 'followed'`))[0]!.id);

    await store.appendEvent(event('followed', 1)); // nobody follows: no notification
    let calls = 0;
    const stop = store.watchEvents('followed', () => (calls += 1));
    await new Promise<void>((resolve) => {
      const check = async () => ((await sql(`SELECT 1 FROM "${name}".followers`)).length > 0 ? resolve() : setTimeout(() => void check(), 20));
      void check();
    });
    await store.appendEvent(event('followed', 2));
    await next();
    expect(payloads[0]).toBe(`${key}:2`);
    expect(calls).toBeGreaterThan(0);

    stop();
    await new Promise<void>((resolve) => {
      const check = async () => ((await sql(`SELECT 1 FROM "${name}".followers`)).length === 0 ? resolve() : setTimeout(() => void check(), 20));
      void check();
    });
    payloads.length = 0;
    await store.appendEvent(event('followed', 3)); // the follower left: no notification
    const watcher = store.watchEvents('followed', () => undefined);
    await new Promise<void>((resolve) => {
      const check = async () => ((await sql(`SELECT 1 FROM "${name}".followers`)).length > 0 ? resolve() : setTimeout(() => void check(), 20));
      void check();
    });
    await store.appendEvent(event('followed', 4));
    await next();
    expect(payloads[0]).toBe(`${key}:4`);
    watcher();
    await listener.end();
    await store.close();
  });
});
