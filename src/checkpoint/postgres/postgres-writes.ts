/**
 * How the Postgres store writes a run: every write of one run goes through that run's chain, in
 * the order the kernel made it, and becomes ONE statement (data-modifying CTEs, atomic without
 * BEGIN/COMMIT round trips). Events and tool results are queued and ride with the run's next
 * checkpoint or result, or go on their own when the current macrotask ends; queue changes are
 * written at once (ADR/0181, ADR/0492). A write's promise settles when its statement committed.
 * Runs write independently; when many write at once, their statements commit in groups (ADR/0490).
 */
import type { KernelEvent } from '../../contracts/events.js';
import type { CheckpointEntry } from '../../contracts/checkpoint.js';
import { toJson } from '../json-codec.js';
import { resultsRefusal } from '../history-rules.js';
import { checkpointOutOfOrder, eventOutOfOrder, leaseLost } from '../run-refusals.js';
import { IMMEDIATE_EVENT_TYPES } from '../immediate-events.js';
import { NOW_MS } from './postgres-clock.js';
import { eventPayload } from './postgres-events.js';
import type { UnknownOutcome } from './postgres-reconnect.js';

/** Runs one parameterised statement; `name` caches its plan per connection. */
export type Execute = (name: string, text: string, values: readonly unknown[], unknownOutcome?: UnknownOutcome) => Promise<readonly Record<string, unknown>[]>;


interface Batch {
  /** The lease token the batch's writes were made under (the run's writes all carry the same one). */
  fence?: number;
  events: { seq: number; type: string; at: number; body: string }[];
  tools: Map<string, string>;
  settle: { resolve: () => void; reject: (error: unknown) => void }[];
}

interface Extra {
  readonly entry?: { readonly entry: CheckpointEntry; readonly body: string; readonly results: readonly string[] };
  readonly result?: { readonly stop: string; readonly tasksDone: number; readonly body: string };
}

interface RunSlot {
  readonly key: number;
  readonly runId: string;
  chain: Promise<unknown>;
  batch: Batch;
  /** A write of the queue is due: its action is in the chain, or will be when the macrotask ends. */
  scheduled: boolean;
  /** Actions in the run's chain not started yet. */
  waiting: number;
  lastSeq?: number;
  history?: { sequence: number; committed: number };
  /** The newest token a fenced write of this run was refused for. */
  lost?: number;
}

const emptyBatch = (): Batch => ({ events: [], tools: new Map(), settle: [] });

export class PostgresRunWrites {
  private readonly slots = new Map<string, RunSlot>();

  constructor(
    /** The quoted schema name. */
    private readonly schema: string,
    /** A name for prepared statements, unique per schema. */
    private readonly prefix: string,
    private readonly execute: Execute,
    /** The channel a statement that writes events or a result notifies (ADR/0186). */
    private readonly eventChannel: string,
    /** How a run's write statement is committed: grouped with other runs' (ADR/0490), or like any statement. */
    private readonly commit: Execute = execute,
  ) {}

  /** The slot of a run whose integer key is known; created on first use. */
  slot(runId: string, key: number): RunSlot {
    let slot = this.slots.get(runId);
    if (slot === undefined) {
      slot = { key, runId, chain: Promise.resolve(), batch: emptyBatch(), scheduled: false, waiting: 0 };
      this.slots.set(runId, slot);
    }
    return slot;
  }

  /** A run this process just created: it has no events and no history yet, nothing to read back. */
  created(runId: string, key: number): void {
    const slot = this.slot(runId, key);
    slot.lastSeq ??= 0;
    slot.history ??= { sequence: 0, committed: 0 };
  }

  appendEvent(slot: RunSlot, event: KernelEvent, fence?: number): Promise<void> {
    return this.serial(slot, async () => {
      await this.fenceBatch(slot, fence);
      const last = slot.lastSeq ?? (await this.readLastSeq(slot));
      if (!(event.seq > last)) throw await this.fencedFirst(slot, fence, eventOutOfOrder(event.runId, event.seq, last));
      slot.lastSeq = event.seq;
      const done = this.queue(slot, (batch) => batch.events.push({ seq: event.seq, type: event.type, at: event.at, body: toJson(event, `run ${event.runId}: event ${event.seq}`) }));
      if (IMMEDIATE_EVENT_TYPES.has(event.type)) await this.write(slot, {});
      else this.schedule(slot);
      return { done };
    }).then(({ done }) => done);
  }

  /** Rides with the run's next write (its turn's checkpoint) or goes when the macrotask ends, as events do (ADR/0492). */
  recordToolResult(slot: RunSlot, toolCallId: string, body: string, fence?: number): Promise<void> {
    return this.serial(slot, async () => {
      await this.fenceBatch(slot, fence);
      const done = this.queue(slot, (batch) => batch.tools.set(toolCallId, body));
      this.schedule(slot);
      return { done };
    }).then(({ done }) => done);
  }

  /** A tool result not yet written, so that reads see every write. */
  queuedToolResult(runId: string, toolCallId: string): string | undefined {
    return this.slots.get(runId)?.batch.tools.get(toolCallId);
  }

  saveCheckpoint(slot: RunSlot, entry: CheckpointEntry, fence?: number): Promise<void> {
    return this.serial(slot, async () => {
      await this.fenceBatch(slot, fence);
      const known = slot.history ?? (await this.readHistory(slot));
      if (!(entry.sequence > known.sequence)) {
        throw await this.fencedFirst(slot, fence, checkpointOutOfOrder(entry.runId, `checkpoint #${entry.sequence} is not after the last one, #${known.sequence}`));
      }
      const refusal = resultsRefusal(entry, known.committed);
      if (refusal !== undefined) throw await this.fencedFirst(slot, fence, checkpointOutOfOrder(entry.runId, refusal));
      const { results, ...stored } = entry;
      const body = toJson(stored, `run ${entry.runId}: checkpoint #${entry.sequence}`);
      const rows = results.map((result) => toJson(result, `run ${entry.runId}: the result of task ${result.taskId}`));
      slot.history = undefined;
      await this.write(slot, { entry: { entry, body, results: rows } });
      slot.history = { sequence: entry.sequence, committed: entry.tasksDone };
    });
  }

  saveResult(slot: RunSlot, result: { stop: string; tasksDone: number; body: string }, fence?: number): Promise<void> {
    return this.serial(slot, async () => {
      await this.fenceBatch(slot, fence);
      await this.write(slot, { result });
      // The run ended: what is kept about it is read again if it is resumed.
      this.slots.delete(slot.runId);
    });
  }

  /** Writes whatever the run has queued and waits for every earlier write of it. */
  settle(runId: string): Promise<void> {
    const slot = this.slots.get(runId);
    if (slot === undefined) return Promise.resolve();
    return this.serial(slot, () => this.write(slot, {}));
  }

  /** Settles every run (on close). */
  async settleAll(): Promise<void> {
    await Promise.allSettled([...this.slots.keys()].map((runId) => this.settle(runId)));
  }

  /**
   * A write under `fence` joins the run's queue: refused at once when that token was already
   * refused; a queued batch under another token (or none) is written first, so that one
   * statement carries one fence.
   */
  private async fenceBatch(slot: RunSlot, fence: number | undefined): Promise<void> {
    if (fence !== undefined && slot.lost !== undefined && fence <= slot.lost) throw leaseLost(slot.runId, `the lease of token ${fence} was lost`);
    const batch = slot.batch;
    if (batch.fence === fence) return;
    if (batch.events.length > 0 || batch.tools.size > 0) {
      // Different fences never share a statement: the older batch goes on its own.
      slot.batch = { ...emptyBatch(), fence };
      await this.writeBatch(slot, batch, {}).catch(() => undefined);
      return;
    }
    batch.fence = fence;
  }

  private serial<T>(slot: RunSlot, action: () => Promise<T>): Promise<T> {
    slot.waiting += 1;
    const next = slot.chain.then(() => {
      slot.waiting -= 1;
      return action();
    });
    slot.chain = next.catch(() => undefined);
    return next;
  }

  private queue(slot: RunSlot, add: (batch: Batch) => void): Promise<void> {
    add(slot.batch);
    const done = new Promise<void>((resolve, reject) => slot.batch.settle.push({ resolve, reject }));
    // The caller that awaits it sees a failure; nobody else must.
    done.catch(() => undefined);
    return done;
  }

  /**
   * Writes the queue once the current macrotask ended, unless another write of the run is waiting
   * in its chain by then: that one takes the queue (or, if it only queues too, schedules again). So
   * what the kernel hands over while a statement of the run is in flight — the next turn's events,
   * the `checkpoint_saved` of the last one, a tool result — goes with the next checkpoint.
   */
  private schedule(slot: RunSlot): void {
    if (slot.scheduled) return;
    slot.scheduled = true;
    setImmediate(() => {
      // A failure reaches the callers through their promises.
      this.serial(slot, async () => {
        slot.scheduled = false;
        if (slot.waiting === 0) await this.write(slot, {});
      }).catch(() => undefined);
    });
  }

  /** One statement: the queued events and tool results, then the extra rows, all or nothing. */
  private async write(slot: RunSlot, extra: Extra): Promise<void> {
    const batch = slot.batch;
    if (batch.events.length === 0 && batch.tools.size === 0 && extra.entry === undefined && extra.result === undefined) return;
    slot.batch = { ...emptyBatch(), ...(batch.fence === undefined ? {} : { fence: batch.fence }) };
    await this.writeBatch(slot, batch, extra);
  }

  private async writeBatch(slot: RunSlot, batch: Batch, extra: Extra): Promise<void> {
    const { name, text, values } = this.statement(slot, batch, extra);
    try {
      // A retry after a lost connection that meets its own rows (events and checkpoints are keyed)
      // proves the statement had committed, fenced (ADR/0187).
      const rows = await this.commit(name, text, values, { committed: batch.fence === undefined ? [] : [{ fenced: true }] });
      if (batch.fence !== undefined && rows[0]?.fenced !== true) {
        slot.lost = Math.max(batch.fence, slot.lost ?? 0);
        throw leaseLost(slot.runId, await this.refusal(slot.key, batch.fence));
      }
    } catch (error) {
      // Another writer may have taken these seqs: read the log's end again before the next event.
      slot.lastSeq = undefined;
      slot.history = undefined;
      for (const waiter of batch.settle) waiter.reject(error);
      throw error;
    }
    for (const waiter of batch.settle) waiter.resolve();
  }

  /** A write out of order under a lease that passed on: the lost lease is the reason to report. */
  private async fencedFirst(slot: RunSlot, fence: number | undefined, error: Error): Promise<Error> {
    if (fence === undefined) return error;
    const refusal = await this.refusal(slot.key, fence, true);
    if (refusal === undefined) return error;
    slot.lost = Math.max(fence, slot.lost ?? 0);
    return leaseLost(slot.runId, refusal);
  }

  private async refusal(key: number, fence: number): Promise<string>;
  private async refusal(key: number, fence: number, onlyWhenLost: true): Promise<string | undefined>;
  private async refusal(key: number, fence: number, onlyWhenLost = false): Promise<string | undefined> {
    const rows = await this.execute(`${this.prefix}_lease_now`, `SELECT token, expires_at <= ${NOW_MS} AS expired FROM ${this.schema}.leases WHERE run = $1`, [key]).catch(() => []);
    const row = rows[0];
    if (row === undefined || Number(row.token) !== fence) return `a newer lease (token ${row === undefined ? 'none' : String(row.token)}) replaced token ${fence}`;
    if (row.expired === true || !onlyWhenLost) return `the lease of token ${fence} expired`;
    return undefined;
  }

  private statement(slot: RunSlot, batch: Batch, extra: Extra): { name: string; text: string; values: unknown[] } {
    const { key } = slot;
    const s = this.schema;
    const values: unknown[] = [key];
    const param = (value: unknown, type: string) => {
      values.push(value);
      return `$${values.length}::${type}`;
    };
    const parts: string[] = [];
    const shape: string[] = [];
    // Fenced: every insert happens only when the lease row (locked against a takeover until the
    // statement commits) still has this token and has not expired by the server's clock.
    const fenced = batch.fence !== undefined;
    const when = fenced ? ' WHERE EXISTS (SELECT 1 FROM fence)' : '';
    if (fenced) {
      shape.push('f');
      parts.push(`SELECT 1 FROM ${s}.leases WHERE run = $1 AND token = ${param(batch.fence, 'bigint')} AND expires_at > ${NOW_MS} FOR SHARE`);
    }
    if (batch.events.length > 0) {
      shape.push('e');
      const { events } = batch;
      parts.push(`INSERT INTO ${s}.events (run, seq, type, at, body) SELECT $1, * FROM unnest(${param(events.map((e) => e.seq), 'int[]')}, ${param(events.map((e) => e.type), 'text[]')}, ${param(events.map((e) => e.at), 'bigint[]')}, ${param(events.map((e) => e.body), 'text[]')})${when}`);
    }
    if (batch.tools.size > 0) {
      shape.push('t');
      parts.push(`INSERT INTO ${s}.tool_results (run, tool_call_id, body) SELECT $1, * FROM unnest(${param([...batch.tools.keys()], 'text[]')}, ${param([...batch.tools.values()], 'text[]')})${when}
        ON CONFLICT (run, tool_call_id) DO UPDATE SET body = excluded.body`);
    }
    if (extra.entry !== undefined) {
      shape.push('c');
      const { entry, body, results } = extra.entry;
      const { taskId, taskIndex, turn } = entry.position;
      parts.push(`INSERT INTO ${s}.checkpoint_entries (run, sequence, kind, version, saved_at, event_seq, task_id, task_index, turn, tasks_done, snapshot, body)
        SELECT $1, ${param(entry.sequence, 'int')}, ${param(entry.kind, 'text')}, ${param(entry.version, 'int')}, ${param(entry.savedAt, 'bigint')}, ${param(entry.eventSeq, 'int')},
          ${param(taskId ?? null, 'text')}, ${param(taskIndex ?? null, 'int')}, ${param(turn ?? null, 'int')}, ${param(entry.tasksDone, 'int')}, ${param(entry.snapshot !== undefined, 'boolean')}, ${param(body, 'text')}${when}`);
      if (results.length > 0) {
        shape.push('r');
        const first = entry.tasksDone - results.length;
        parts.push(`INSERT INTO ${s}.checkpoint_results (run, position, sequence, task_id, body)
          SELECT $1, ${param(first, 'int')} + ordinality::int - 1, ${param(entry.sequence, 'int')}, task_id, body
          FROM unnest(${param(entry.results.map((result) => result.taskId), 'text[]')}, ${param(results, 'text[]')}) WITH ORDINALITY AS r (task_id, body, ordinality)${when}`);
      }
    }
    if (extra.result !== undefined) {
      shape.push('w');
      const { stop, tasksDone, body } = extra.result;
      parts.push(`INSERT INTO ${s}.results (run, stop, tasks_done, body) SELECT $1, ${param(stop, 'text')}, ${param(tasksDone, 'int')}, ${param(body, 'text')}${when}
        ON CONFLICT (run) DO UPDATE SET stop = excluded.stop, tasks_done = excluded.tasks_done, body = excluded.body`);
    }
    // Readers following the run are told, at commit, which seq the log now reaches (not the
    // events) — only while the run has a follower: NOTIFY serialises commits (ADR/0186).
    const notify = batch.events.length > 0 || extra.result !== undefined;
    const notified = notify ? `pg_notify(${param(this.eventChannel, 'text')}, ${param(eventPayload(key, batch.events.at(-1)?.seq ?? slot.lastSeq ?? 0), 'text')})` : undefined;
    const followed = `EXISTS (SELECT 1 FROM ${s}.followers WHERE run = $1 AND expires_at > ${NOW_MS})`;
    if (notified !== undefined) shape.push('n');
    if (fenced) parts.push(`SELECT EXISTS (SELECT 1 FROM fence) AS fenced${notified === undefined ? '' : `, (SELECT count(${notified}) FROM fence WHERE ${followed}) AS notified`}`);
    else if (notified !== undefined) parts.push(`SELECT ${notified} WHERE ${followed}`);
    const named = parts.slice(0, -1).map((part, index) => `${fenced && index === 0 ? 'fence' : `w${index}`} AS (${part})`);
    const text = parts.length === 1 ? parts[0]! : `WITH ${named.join(', ')} ${parts[parts.length - 1]!}`;
    return { name: `${this.prefix}_w_${shape.join('')}`, text, values };
  }

  private async readLastSeq(slot: RunSlot): Promise<number> {
    const rows = await this.execute(`${this.prefix}_last_seq`, `SELECT coalesce(max(seq), 0) AS seq FROM ${this.schema}.events WHERE run = $1`, [slot.key]);
    const last = Number(rows[0]?.seq ?? 0);
    // Events queued meanwhile are after what the table holds.
    return slot.lastSeq ?? last;
  }

  private async readHistory(slot: RunSlot): Promise<{ sequence: number; committed: number }> {
    const rows = await this.execute(
      `${this.prefix}_history_end`,
      `SELECT (SELECT coalesce(max(sequence), 0) FROM ${this.schema}.checkpoint_entries WHERE run = $1) AS sequence,
              (SELECT coalesce(max(position) + 1, 0) FROM ${this.schema}.checkpoint_results WHERE run = $1) AS committed`,
      [slot.key],
    );
    return { sequence: Number(rows[0]?.sequence ?? 0), committed: Number(rows[0]?.committed ?? 0) };
  }
}

