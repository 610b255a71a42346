import type { KernelEvent } from '../contracts/events.js';
import { RunError } from '../errors.js';

/*
 * Damage a store cannot see row by row: a record that says the run made progress while the
 * history that progress rests on is gone (rows deleted, a file restored from an older copy, a
 * table truncated). Each is `checkpoint_corrupt`: a resume refuses the run, never restarting it
 * from its first task or an earlier checkpoint, and the audit lists it among the run's errors
 * (ADR 0105, ADR 0302). Every store's
 * resume and audit use this one check.
 */

/** What a store knows about a run's history, without reading the whole of it. */
export interface HistoryFacts {
  readonly runId: string;
  /** The store's `kind`, named in the message. */
  readonly storeKind: string;
  /** Tasks the run's saved result records as finished (its `tasks_done`); 0 without a result. */
  readonly tasksDone: number;
  /** The `sequence` of the latest checkpoint the store holds; undefined when it holds none. */
  readonly checkpointSequence: number | undefined;
  /** Whether the event log holds any event of the run. */
  readonly hasEvents: boolean;
  /** The log's `checkpoint_saved` events (at least those after the latest checkpoint the store holds). */
  readonly savedCheckpoints: readonly KernelEvent[];
}

/** What is damaged, in one sentence naming the run; `undefined` when the history is whole as far as these facts tell. */
export function historyDamage(facts: HistoryFacts): string | undefined {
  const { runId, storeKind } = facts;
  const saved = facts.savedCheckpoints;
  const held = facts.checkpointSequence;
  if (held !== undefined) {
    // A checkpoint the log says was saved after the latest one held is lost: resuming would repeat work already done (ADR 0302).
    const lost = saved.filter((event) => event.type === 'checkpoint_saved' && event.sequence !== undefined && event.sequence > held);
    if (lost.length === 0) return undefined;
    const last = lost[lost.length - 1]!;
    return `run ${runId}: its event log records ${lost.length} checkpoint(s) saved after the latest the ${storeKind} store holds (#${held}; the last, #${last.type === 'checkpoint_saved' ? last.sequence : '?'}, at event #${last.seq}); the later checkpoints are lost or damaged, so the run is not resumed from an earlier point`;
  }
  if (saved.length > 0) {
    const last = saved[saved.length - 1]!;
    return `run ${runId}: its event log records ${saved.length} saved checkpoint(s) (the last at event #${last.seq}) but the ${storeKind} store holds none; the checkpoints are lost or damaged, so the run is not restarted from its first task`;
  }
  if (facts.tasksDone > 0 && !facts.hasEvents) {
    return `run ${runId}: its saved result records ${facts.tasksDone} finished task(s) but the ${storeKind} store holds no checkpoint and no event of it; the history is lost or damaged, so the run is not restarted from its first task`;
  }
  return undefined;
}

/** Throws the damage these facts show as `RunError checkpoint_corrupt` (a resume refuses the run). */
export function refuseDamagedHistory(facts: HistoryFacts): void {
  const damage = historyDamage(facts);
  if (damage !== undefined) throw new RunError({ code: 'checkpoint_corrupt', runId: facts.runId, message: damage });
}
