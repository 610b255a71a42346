/**
 * Group commit across runs (ADR/0490). A run's write is one statement (postgres-writes.ts); on its
 * own it is one commit, and a commit waits for a WAL flush. Writes of other runs that arrive while
 * every connection given to grouping is committing wait and go together in the next group: one transaction, one flush, for up
 * to `maxStatements` of them. A write that finds nothing in flight goes at once, alone, as before —
 * a lone run pays no extra round trip.
 *
 * Each statement carries its own run's fence check as data (`fenced`), so a fenced-out run's rows
 * are refused without failing the others. A statement that fails for another reason (a key another
 * writer took, a deadlock) rolls the group back, and each statement of it is then run again on its
 * own, so that only its own run sees the failure. A write's promise settles only after the commit
 * that holds it: a crash between groups loses no acknowledged write. A connection lost while the
 * group ran may have committed it: each statement is tried again as a retry, which reads a
 * duplicate key as "it had committed" (ADR/0187).
 */
import type { Pool, PoolClient } from 'pg';
import { isConnectionLoss, type UnknownOutcome } from './postgres-reconnect.js';

type Row = Record<string, unknown>;

/** Runs one statement on the pool, autocommitted, riding out a lost connection; `maybeRan`: it may have committed already. */
export type SingleStatement = (name: string, text: string, values: readonly unknown[], unknownOutcome: UnknownOutcome, maybeRan: boolean) => Promise<Row[]>;

interface Pending {
  readonly name: string;
  readonly text: string;
  readonly values: readonly unknown[];
  readonly unknownOutcome: UnknownOutcome;
  readonly resolve: (rows: Row[]) => void;
  readonly reject: (error: unknown) => void;
}

/** Most statements one group commits; more wait for the next group. */
export const MAX_GROUP_STATEMENTS = 64;
/**
 * Groups committing at once, each on its own connection. Below this many writes in flight every
 * write goes alone, as without grouping; beyond it, writes wait and group: the more runs write at
 * once, the more each commit carries.
 */
export const MAX_GROUPS_IN_FLIGHT = 3;

export class GroupCommit {
  private pending: Pending[] = [];
  private inFlight = 0;

  constructor(
    private readonly pool: () => Promise<Pool>,
    private readonly single: SingleStatement,
    private readonly maxStatements: number = MAX_GROUP_STATEMENTS,
    private readonly maxInFlight: number = MAX_GROUPS_IN_FLIGHT,
  ) {}

  execute(name: string, text: string, values: readonly unknown[], unknownOutcome: UnknownOutcome): Promise<Row[]> {
    return new Promise((resolve, reject) => {
      this.pending.push({ name, text, values, unknownOutcome, resolve, reject });
      if (this.inFlight < this.maxInFlight) void this.drain();
    });
  }

  /** Commits the waiting statements, group after group, until none waits. */
  private async drain(): Promise<void> {
    this.inFlight += 1;
    try {
      while (this.pending.length > 0) {
        const group = this.pending.splice(0, this.maxStatements);
        await (group.length === 1 ? this.alone(group[0]!, false) : this.together(group));
      }
    } finally {
      this.inFlight -= 1;
    }
  }

  private async alone(item: Pending, maybeRan: boolean): Promise<void> {
    await this.single(item.name, item.text, item.values, item.unknownOutcome, maybeRan).then(item.resolve, item.reject);
  }

  private async together(group: readonly Pending[]): Promise<void> {
    let client: PoolClient | undefined;
    let commitSent = false;
    const rows: Row[][] = [];
    try {
      client = await (await this.pool()).connect();
      await client.query('BEGIN');
      for (const item of group) rows.push((await client.query({ name: item.name, text: item.text, values: item.values as unknown[] })).rows as Row[]);
      commitSent = true;
      await client.query('COMMIT');
    } catch (error) {
      const lost = client === undefined || isConnectionLoss(error);
      if (client !== undefined && !lost) await client.query('ROLLBACK').catch(() => undefined);
      // A connection in an unknown state is not given back to the pool.
      client?.release(lost ? (error instanceof Error ? error : new Error(String(error))) : undefined);
      // Each on its own: a statement that failed fails for its run only; the rolled-back ones
      // commit now. Only a connection lost once COMMIT was sent leaves the group's outcome
      // unknown: then each is a retry that reads a duplicate key as "it had committed".
      await Promise.all(group.map((item) => this.alone(item, lost && commitSent)));
      return;
    }
    client.release();
    group.forEach((item, index) => item.resolve(rows[index]!));
  }
}
