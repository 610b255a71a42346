import { readFileSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { memoryStore, type CheckpointEntry, type CheckpointStore, type RunRecord, type StoredCheckpoints } from 'dualloop';
import { MIGRATIONS, openDatabase } from '../../src/checkpoint/sqlite/sqlite-schema.js';

export const FIXTURE_RUN_ID = 'fixture-run';
/** Single stored envelopes: version 1 as dualloop 0.1 wrote them, damaged ones, and a future version. */
export const ENVELOPE_FILES = ['v1-task-boundary.json', 'v1-mid-task.json', 'corrupt-truncated.json', 'corrupt-wrong-types.json', 'future-v4.json'] as const;
export type EnvelopeFile = (typeof ENVELOPE_FILES)[number];

/** The stored text of a fixture, exactly as a store would hold it. */
export function fixtureText(file: EnvelopeFile | 'v2-run.json'): string {
  return readFileSync(new URL(`./fixtures/${file}`, import.meta.url), 'utf8');
}

/** The fixture as a store hands it back: parsed JSON, or the raw text when it is not JSON. */
export function fixtureValue(file: EnvelopeFile): unknown {
  const text = fixtureText(file);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** The version 2 history of the fixture run, as the kernel handed it to the store: a turn, task 1, a turn, task 2. */
export function fixtureEntries(): CheckpointEntry[] {
  return JSON.parse(fixtureText('v2-run.json')) as CheckpointEntry[];
}

/** What a store answers after the fixture entries up to `sequence`. */
export function fixtureHistory(sequence: number): StoredCheckpoints {
  const store = memoryStore();
  store.createRun(fixtureRecord());
  for (const entry of fixtureEntries().filter((item) => item.sequence <= sequence)) store.saveCheckpoint(entry);
  return store.loadCheckpoint(FIXTURE_RUN_ID)!;
}

const BOUNDS = { maxTurns: 25, maxToolCalls: 50, maxRuntimeMs: 600_000 };

/** The run record the fixtures belong to (two tasks, default bounds). */
export function fixtureRecord(): RunRecord {
  return {
    runId: FIXTURE_RUN_ID,
    optionsDigest: 'fixture',
    tasks: [
      { id: 'task-1', index: 0, description: 'count the letters of durable', bounds: BOUNDS },
      { id: 'task-2', index: 1, description: 'count the letters of resume', bounds: BOUNDS },
    ],
    createdAt: 1_700_000_000_000,
  };
}

/** A store of version 1 (or one that kept a single envelope): its `loadCheckpoint` hands the fixture back as stored. */
export function legacyStore(store: CheckpointStore, file: EnvelopeFile): CheckpointStore {
  return { ...store, loadCheckpoint: () => fixtureValue(file) as StoredCheckpoints };
}

/**
 * A SQLite file of schema version 1, as dualloop 0.1 left it: the fixture run and the fixture as
 * its latest checkpoint row (raw text, written through SQL). Opening it with `sqliteStore` migrates it.
 */
export function writeVersion1File(path: string, file: EnvelopeFile): void {
  openDatabase({ path, busyTimeoutMs: 1000, synchronous: 'normal', migrations: MIGRATIONS.slice(0, 1) }).close();
  const database = new DatabaseSync(path);
  try {
    const record = fixtureRecord();
    const run = database
      .prepare('INSERT INTO runs (run_id, name, options_digest, tasks, tasks_total, created_at) VALUES (?, NULL, ?, ?, ?, ?)')
      .run(record.runId, record.optionsDigest, JSON.stringify(record.tasks), record.tasks.length, record.createdAt);
    // The columns as dualloop 0.1 filled them from the envelope (a damaged body: as for its turn checkpoint #3).
    const envelope = fixtureValue(file) as { sequence?: unknown; kind?: unknown; savedAt?: unknown; eventSeq?: unknown; progress?: { results?: unknown[] } };
    const sequence = typeof envelope.sequence === 'number' ? envelope.sequence : 3;
    const kind = envelope.kind === 'task' ? 'task' : 'turn';
    database
      .prepare('INSERT INTO checkpoints (run, slot, sequence, kind, version, saved_at, event_seq, tasks_done, body) VALUES (?, ?, ?, ?, 1, ?, ?, ?, ?)')
      .run(run.lastInsertRowid, kind === 'turn' ? 0 : sequence, sequence, kind, Number(envelope.savedAt ?? 0), Number(envelope.eventSeq ?? 0), envelope.progress?.results?.length ?? 0, fixtureText(file));
  } finally {
    database.close();
  }
}
