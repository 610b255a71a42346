/**
 * The Postgres store's fenced leases (ADR/0180, ADR/0182): one row per run in `leases`, taken and
 * renewed by compare-and-set on the server's clock, a new holder getting the next fencing token;
 * and the run's fingerprint, rewritten only under the lease that holds the run.
 */
import type { LeaseResult } from '../../contracts/store.js';
import type { WorkflowFingerprint } from '../../contracts/fingerprint.js';
import { toJson } from '../json-codec.js';
import { leaseLost } from '../run-refusals.js';
import { NOW_MS } from './postgres-clock.js';

type Row = Record<string, unknown>;

export interface PostgresLeaseDeps {
  /** The quoted schema. */
  readonly schema: string;
  readonly prefix: string;
  query(name: string, text: string, values: readonly unknown[]): Promise<Row[]>;
  keyOf(runId: string, operation: string): Promise<number>;
  findKey(runId: string): Promise<number | undefined>;
}

export function postgresLeases({ schema, prefix, query, keyOf, findKey }: PostgresLeaseDeps) {
  return {
    async acquireLease(runId: string, holder: string, ttlMs: number, takeOverFrom: string | undefined): Promise<LeaseResult> {
      const key = await keyOf(runId, 'acquireLease');
      // Compare-and-set in one statement, on the server's clock (ADR/0182): the row changes only
      // when free, expired, already ours, or held by the dead holder we take over from; a new
      // holder gets the next fencing token (ADR/0180).
      const taken = await query(
        `${prefix}_acquire`,
        `INSERT INTO ${schema}.leases AS l (run, holder, token, expires_at) VALUES ($1, $2, 1, ${NOW_MS} + $3)
         ON CONFLICT (run) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at,
           token = l.token + CASE WHEN l.holder IS NOT DISTINCT FROM excluded.holder THEN 0 ELSE 1 END
         WHERE l.holder IS NOT DISTINCT FROM excluded.holder OR l.holder IS NULL OR l.expires_at <= ${NOW_MS} OR l.holder = $4
         RETURNING token, expires_at`,
        [key, holder, ttlMs, takeOverFrom ?? null],
      );
      if (taken[0] !== undefined) return { acquired: true, token: Number(taken[0].token), expiresAt: Number(taken[0].expires_at) };
      const row = (await query(`${prefix}_lease`, `SELECT holder, expires_at FROM ${schema}.leases WHERE run = $1`, [key]))[0];
      return { acquired: false, holder: String(row?.holder ?? ''), expiresAt: Number(row?.expires_at ?? 0) };
    },

    async releaseLease(runId: string, holder: string): Promise<void> {
      const key = await findKey(runId);
      if (key === undefined) return;
      await query(`${prefix}_release`, `UPDATE ${schema}.leases SET holder = NULL, expires_at = 0 WHERE run = $1 AND holder = $2`, [key, holder]);
    },

    async updateFingerprint(runId: string, fingerprint: WorkflowFingerprint, fence: number | undefined): Promise<void> {
      const key = await keyOf(runId, 'updateFingerprint');
      // Fenced in the same statement, as every write of a run (ADR/0180).
      const rows = await query(
        `${prefix}_fingerprint`,
        `UPDATE ${schema}.runs SET fingerprint = $2 WHERE id = $1
           AND ($3::bigint IS NULL OR EXISTS (SELECT 1 FROM ${schema}.leases WHERE run = $1 AND token = $3 AND expires_at > ${NOW_MS}))
         RETURNING id`,
        [key, toJson(fingerprint, `run ${runId}: the fingerprint`), fence ?? null],
      );
      if (rows.length === 0) throw leaseLost(runId, `the lease of token ${fence} is no longer the run's`);
    },
  };
}
