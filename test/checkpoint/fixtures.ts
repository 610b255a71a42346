import { readFileSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import type { CheckpointStore, RunRecord } from 'dualloop';

export const FIXTURE_RUN_ID = 'fixture-run';
export const FIXTURE_FILES = ['v1-task-boundary.json', 'v1-mid-task.json', 'corrupt-truncated.json', 'corrupt-wrong-types.json', 'future-v2.json'] as const;
export type FixtureFile = (typeof FIXTURE_FILES)[number];

/** The stored text of a fixture, exactly as a store would hold it. */
export function fixtureText(file: FixtureFile): string {
  return readFileSync(new URL(`./fixtures/${file}`, import.meta.url), 'utf8');
}

/** The fixture as a store hands it back: parsed JSON, or the raw text when it is not JSON. */
export function fixtureValue(file: FixtureFile): unknown {
  const text = fixtureText(file);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
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

/**
 * Makes a fixture the latest checkpoint of the fixture run and returns the store to use: a SQLite
 * file gets the raw row text (written through a second connection, as a damaged or newer file
 * would hold it); any other store is wrapped so that `loadCheckpoint` hands the fixture back as
 * stored (JSON-parsed, or the raw text when it is not JSON).
 */
export function plantCheckpoint(store: CheckpointStore, file: FixtureFile, sqlitePath?: string): CheckpointStore {
  if (sqlitePath === undefined) return { ...store, loadCheckpoint: () => fixtureValue(file) };
  const database = new DatabaseSync(sqlitePath);
  try {
    const run = database.prepare('SELECT id FROM runs WHERE run_id = ?').get(FIXTURE_RUN_ID) as { id: number };
    database
      .prepare('INSERT INTO checkpoints (run, slot, sequence, kind, version, saved_at, event_seq, tasks_done, body) VALUES (?, 0, 3, ?, 1, 0, 0, 0, ?)')
      .run(run.id, 'turn', fixtureText(file));
  } finally {
    database.close();
  }
  return store;
}
