/**
 * Rate-limit windows in Postgres (`SharedRateWindows`, docs/operations.md "Rate limits"): one
 * `rate_keys` row per model key, locked `FOR UPDATE` while a process decides whether a call fits,
 * and one `rate_starts` row per call of the last minute. Each decision is one short transaction on
 * its own connection; time is the database's (`NOW_MS`), as for leases, so processes with skewed
 * clocks share one window. The rule itself is the in-process limiter's (`blockedFor`).
 */
import type { Pool } from 'pg';
import type { RateLimit } from '../../contracts/model.js';
import type { SharedRateWindows } from '../../contracts/rate-windows.js';
import { blockedFor, WINDOW_MS } from '../../providers/rate-limiter.js';
import { NOW_MS } from './postgres-clock.js';

export function postgresRateWindows(pool: () => Promise<Pool>, schema: string): SharedRateWindows {
  const inTransaction = async <T>(work: (query: (text: string, values: readonly unknown[]) => Promise<Record<string, unknown>[]>) => Promise<T>): Promise<T> => {
    const client = await (await pool()).connect();
    try {
      await client.query('BEGIN');
      const result = await work(async (text, values) => (await client.query(text, [...values])).rows as Record<string, unknown>[]);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  };

  return {
    takeRate: (key: string, limit: RateLimit, tokens: number) =>
      inTransaction(async (query) => {
        await query(`INSERT INTO ${schema}.rate_keys (key) VALUES ($1) ON CONFLICT (key) DO NOTHING`, [key]);
        const [row] = await query(`SELECT paused_until, ${NOW_MS} AS now FROM ${schema}.rate_keys WHERE key = $1 FOR UPDATE`, [key]);
        const now = Number(row!.now);
        await query(`DELETE FROM ${schema}.rate_starts WHERE key = $1 AND at <= $2`, [key, now - WINDOW_MS]);
        const counted = (await query(`SELECT at, tokens FROM ${schema}.rate_starts WHERE key = $1 ORDER BY at, id`, [key])).map((start) => ({ at: Number(start.at), tokens: Number(start.tokens) }));
        const blocked = blockedFor(limit, counted, Number(row!.paused_until), now, tokens);
        if (blocked !== undefined) return blocked;
        const [started] = await query(`INSERT INTO ${schema}.rate_starts (key, at, tokens) VALUES ($1, $2, $3) RETURNING id`, [key, now, tokens]);
        return { id: String(started!.id) };
      }),
    settleRate: async (key, id, tokens) => {
      await (await pool()).query(`UPDATE ${schema}.rate_starts SET tokens = $3 WHERE id = $2 AND key = $1`, [key, id, Math.max(0, Math.round(tokens))]);
    },
    pauseRate: async (key, waitMs) => {
      await (await pool()).query(
        `INSERT INTO ${schema}.rate_keys AS k (key, paused_until) VALUES ($1, ${NOW_MS} + $2) ON CONFLICT (key) DO UPDATE SET paused_until = GREATEST(k.paused_until, excluded.paused_until)`,
        [key, Math.max(0, Math.round(waitMs))],
      );
    },
  };
}
