import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { AUDITED_EVENT_TYPES } from '../../audit/build-audit.js';
import { RUN_RANGE } from './sqlite-schema.js';

/** A run's rows of `events` and `checkpoint_entries`: the rowid range of run key ?1 (ADR/0380). */
const FIRST = `?1 * ${RUN_RANGE}`;
const END = `(?1 + 1) * ${RUN_RANGE}`;

/**
 * Every statement the SQLite store runs, prepared once when the store opens. Parameters are
 * positional; `run` is the integer key of `runs.id`, looked up once per run id and cached.
 */
export function prepareStatements(database: DatabaseSync) {
  const prepare = (sql: string): StatementSync => database.prepare(sql);
  return {
    begin: prepare('BEGIN IMMEDIATE'),
    commit: prepare('COMMIT'),
    rollback: prepare('ROLLBACK'),

    insertRun: prepare('INSERT INTO runs (run_id, name, options_digest, tasks, tasks_total, created_at, fork_of_run_id, fork_of_at, parent_run_id, parent_tool_call_id, fingerprint, eval_of_run_id, eval_of_suite) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)'),
    updateFingerprint: prepare('UPDATE runs SET fingerprint = ? WHERE id = ?'),
    runKey: prepare('SELECT id FROM runs WHERE run_id = ?'),
    getRun: prepare('SELECT run_id, name, options_digest, tasks, created_at, fork_of_run_id, fork_of_at, parent_run_id, parent_tool_call_id, fingerprint, eval_of_run_id, eval_of_suite FROM runs WHERE run_id = ?'),
    listRuns: prepare(`
      SELECT r.run_id, r.name, r.created_at, r.tasks_total, r.fork_of_run_id, r.fork_of_at, r.parent_run_id, r.parent_tool_call_id, r.eval_of_run_id, r.eval_of_suite,
             res.stop AS result_stop, res.tasks_done AS result_done,
             (SELECT c.tasks_done FROM checkpoint_entries c WHERE c.id >= r.id * ${RUN_RANGE} AND c.id < (r.id + 1) * ${RUN_RANGE} ORDER BY c.id DESC LIMIT 1) AS checkpoint_done
      FROM runs r LEFT JOIN results res ON res.run = r.id
      ORDER BY r.created_at DESC, r.id DESC
      LIMIT ?`),

    // The checkpoint history (ADR/0120): entries and committed task results are only ever inserted.
    insertEntry: prepare(`
      INSERT INTO checkpoint_entries (id, run, sequence, kind, version, saved_at, event_seq, task_id, task_index, turn, tasks_done, snapshot, body)
      VALUES (${FIRST} + ?2, ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)`),
    insertResult: prepare('INSERT INTO checkpoint_results (run, position, sequence, task_id, body) VALUES (?, ?, ?, ?, ?)'),
    lastEntry: prepare(`SELECT coalesce((SELECT sequence FROM checkpoint_entries WHERE id >= ${FIRST} AND id < ${END} ORDER BY id DESC LIMIT 1), 0) AS sequence`),
    committedCount: prepare('SELECT coalesce(max(position) + 1, 0) AS count FROM checkpoint_results WHERE run = ?'),
    pointEntry: prepare(`SELECT sequence, tasks_done FROM checkpoint_entries WHERE id >= ${FIRST} AND id <= ${FIRST} + ?2 AND id < ${END} ORDER BY id DESC LIMIT 1`),
    historyEntries: prepare(`
      SELECT sequence, body FROM checkpoint_entries
      WHERE id <= ${FIRST} + ?2 AND id < ${END}
        AND id >= ${FIRST} + coalesce((SELECT max(sequence) FROM checkpoint_entries WHERE run = ?1 AND snapshot = 1 AND sequence <= ?2), 0)
      ORDER BY id`),
    committedResults: prepare('SELECT position, body FROM checkpoint_results WHERE run = ? AND position < ? ORDER BY position'),
    listEntries: prepare(
      `SELECT sequence, kind, version, saved_at, event_seq, task_id, task_index, turn, tasks_done, snapshot FROM checkpoint_entries WHERE id >= ${FIRST} AND id < ${END} ORDER BY id`,
    ),

    upsertToolResult: prepare(
      'INSERT INTO tool_results (run, tool_call_id, body) VALUES (?, ?, ?) ON CONFLICT (run, tool_call_id) DO UPDATE SET body = excluded.body',
    ),
    getToolResult: prepare('SELECT body FROM tool_results WHERE run = ? AND tool_call_id = ?'),

    insertEvent: prepare(`INSERT INTO events (id, run, seq, type, at, body) VALUES (${FIRST} + ?2, ?1, ?2, ?3, ?4, ?5)`),
    lastEventSeq: prepare(`SELECT coalesce((SELECT seq FROM events WHERE id >= ${FIRST} AND id < ${END} ORDER BY id DESC LIMIT 1), 0) AS seq`),
    eventExists: prepare(`SELECT 1 AS found FROM events WHERE id = ${FIRST} + ?2`),
    readEvents: prepare(`SELECT body FROM events WHERE id > ${FIRST} + max(?2, -1) AND id < ${END} ORDER BY id`),
    auditedEvents: prepare(`SELECT body FROM events WHERE id >= ${FIRST} AND id < ${END} AND type IN (${AUDITED_EVENT_TYPES.map(() => '?').join(', ')}) ORDER BY id`),
    countEvents: prepare(`SELECT count(*) AS count FROM events WHERE id >= ${FIRST} AND id < ${END}`),

    upsertResult: prepare(
      'INSERT INTO results (run, stop, tasks_done, body) VALUES (?, ?, ?, ?) ON CONFLICT (run) DO UPDATE SET stop = excluded.stop, tasks_done = excluded.tasks_done, body = excluded.body',
    ),
    loadResult: prepare('SELECT body FROM results WHERE run = ?'),

    // Compare-and-set in one statement: the row changes only when free, expired, already ours, or
    // held by the holder we take over from; a new holder gets the next token (ADR/0180). ?3 is the
    // store's clock: this host's, read when the statement runs (ADR/0182).
    acquireLease: prepare(`
      INSERT INTO leases (run, holder, token, expires_at) VALUES (?1, ?2, 1, ?3 + ?4)
      ON CONFLICT (run) DO UPDATE SET token = leases.token + (leases.holder <> excluded.holder), holder = excluded.holder, expires_at = excluded.expires_at
      WHERE leases.holder = excluded.holder OR leases.holder = '' OR leases.expires_at <= ?3 OR leases.holder = ?5
      RETURNING token, expires_at`),
    getLease: prepare('SELECT holder, token, expires_at FROM leases WHERE run = ?'),
    releaseLease: prepare("UPDATE leases SET holder = '', expires_at = 0 WHERE run = ? AND holder = ?"),
  };
}

export type Statements = ReturnType<typeof prepareStatements>;
