/**
 * The SQLite store's checkpoint history (ADR/0120): each entry is one row of
 * `checkpoint_entries` and each task result it commits one row of `checkpoint_results`, inserted
 * in one transaction with whatever events and tool results are queued (ADR/0020). Rows are never
 * updated. The last sequence and the number of committed results per run are read once and kept;
 * a failed or refused write forgets them, so a second writer on the same run is caught by the
 * primary keys and the next write reads them again.
 */
import type { CheckpointEntry, CheckpointIndexEntry, CheckpointKind, StoredCheckpoints } from '../../contracts/checkpoint.js';
import { RunError } from '../../errors.js';
import { fromJson, toJson } from '../json-codec.js';
import { resultsRefusal } from '../history-rules.js';
import { checkpointOutOfOrder } from '../run-refusals.js';
import type { SqliteWriteBehind } from './sqlite-write-behind.js';
import type { Statements } from './sqlite-statements.js';

type Row = Record<string, unknown>;

export class SqliteCheckpoints {
  private readonly last = new Map<number, { sequence: number; committed: number }>();

  constructor(
    private readonly statements: Statements,
    private readonly queue: SqliteWriteBehind,
    /** The database file, for messages. */
    private readonly path: string,
  ) {}

  save(key: number, entry: CheckpointEntry, fence?: number): void {
    const { runId, sequence } = entry;
    const known = this.last.get(key) ?? this.read(key);
    // A write out of order under a lease that passed on: the lost lease is the reason to report.
    if (!(sequence > known.sequence) || resultsRefusal(entry, known.committed) !== undefined) this.queue.requireFence(key, runId, fence);
    if (!(sequence > known.sequence)) throw checkpointOutOfOrder(runId, `checkpoint #${sequence} is not after the last one, #${known.sequence}`);
    const refusal = resultsRefusal(entry, known.committed);
    if (refusal !== undefined) throw checkpointOutOfOrder(runId, refusal);
    const { results, ...stored } = entry;
    const body = toJson(stored, `run ${runId}: checkpoint #${sequence}`);
    const rows = results.map((result) => toJson(result, `run ${runId}: the result of task ${result.taskId}`));
    const { taskId, taskIndex, turn } = entry.position;
    const first = entry.tasksDone - results.length;
    this.last.delete(key);
    this.queue.commitWith(() => {
      this.queue.requireFence(key, runId, fence);
      this.statements.insertEntry.run(key, sequence, entry.kind, entry.version, entry.savedAt, entry.eventSeq, taskId ?? null, taskIndex ?? null, turn ?? null, entry.tasksDone, entry.snapshot === undefined ? 0 : 1, body);
      rows.forEach((row, index) => this.statements.insertResult.run(key, first + index, sequence, results[index]!.taskId, row));
    }, true);
    this.last.set(key, { sequence, committed: entry.tasksDone });
  }

  load(key: number, runId: string, sequence: number | undefined): StoredCheckpoints | undefined {
    const point = this.statements.pointEntry.get(key, sequence ?? Number.MAX_SAFE_INTEGER) as Row | undefined;
    if (point === undefined) return undefined;
    const entries = (this.statements.historyEntries.all(key, point.sequence as number) as Row[]).map((row) => this.parse(runId, row.body, `checkpoint #${String(row.sequence)}`));
    const results = (this.statements.committedResults.all(key, point.tasks_done as number) as Row[]).map((row) =>
      this.parse(runId, row.body, `task result #${Number(row.position) + 1}`),
    );
    return { results, entries };
  }

  list(key: number): CheckpointIndexEntry[] {
    return (this.statements.listEntries.all(key) as Row[]).map((row) => ({
      sequence: Number(row.sequence),
      kind: String(row.kind) as CheckpointKind,
      version: Number(row.version),
      savedAt: Number(row.saved_at),
      eventSeq: Number(row.event_seq),
      ...(row.task_id === null ? {} : { taskId: String(row.task_id) }),
      ...(row.task_index === null ? {} : { taskIndex: Number(row.task_index) }),
      ...(row.turn === null ? {} : { turn: Number(row.turn) }),
      tasksDone: Number(row.tasks_done),
      snapshot: row.snapshot === 1,
    }));
  }

  /** A run ended: what is kept about it is read again if it is resumed. */
  forget(key: number): void {
    this.last.delete(key);
  }

  private read(key: number): { sequence: number; committed: number } {
    const sequence = Number((this.statements.lastEntry.get(key) as Row).sequence);
    const committed = Number((this.statements.committedCount.get(key) as Row).count);
    return { sequence, committed };
  }

  /** A row that is not JSON cannot be handed back: the run's checkpoint is corrupt. */
  private parse(runId: string, text: unknown, what: string): unknown {
    const parsed = fromJson(text);
    if (parsed.ok) return parsed.value;
    throw new RunError({
      code: 'checkpoint_corrupt',
      runId,
      message: `run ${runId}: ${what} in ${this.path} is not valid JSON (${parsed.message}); the run was not restarted`,
    });
  }
}
