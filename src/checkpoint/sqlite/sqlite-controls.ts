/**
 * The SQLite store's control channel (ADR/0184): commands other processes send a run, as rows of
 * `controls`. The running process polls for them (a cheap indexed read, src/kernel/run-controls.ts)
 * and takes them in one transaction under its lease.
 */
import type { DatabaseSync } from 'node:sqlite';
import type { ControlChannel, ControlCommand } from '../../contracts/control.js';
import type { ApprovalAnswer } from '../../contracts/policy.js';
import { fromJson, toJson } from '../json-codec.js';
import { approvalAnswered } from '../run-refusals.js';
import type { SqliteWriteBehind } from './sqlite-write-behind.js';

type Row = Record<string, unknown>;

export function sqliteControls(
  database: DatabaseSync,
  queue: SqliteWriteBehind,
  keyOf: (runId: string, operation: string) => number,
  findKey: (runId: string) => number | undefined,
): ControlChannel {
  const insert = database.prepare('INSERT INTO controls (run, kind, call_id, body, created_at) VALUES (?, ?, ?, ?, ?)');
  const pending = database.prepare("SELECT id, body FROM controls WHERE run = ? AND taken_at IS NULL AND kind <> 'approve' ORDER BY id");
  const take = database.prepare('UPDATE controls SET taken_at = ? WHERE id = ?');
  const answers = database.prepare("SELECT call_id, body FROM controls WHERE run = ? AND kind = 'approve' ORDER BY id");
  return {
    sendControl(runId, command) {
      const key = keyOf(runId, 'sendControl');
      try {
        queue.commitWith(() => insert.run(key, command.kind, command.kind === 'approve' ? command.approvalId : null, toJson(command, 'the command'), Date.now()));
      } catch (error) {
        if (command.kind === 'approve' && /UNIQUE/i.test(String((error as Error).message))) throw approvalAnswered(runId, command.approvalId);
        throw error;
      }
    },
    takeControls(runId, fence) {
      const key = findKey(runId);
      if (key === undefined) return [];
      // The poll: a read on the partial index, without a write lock, when nothing is waiting.
      if ((pending.all(key) as Row[]).length === 0) return [];
      return queue.commitWith(() => {
        queue.requireFence(key, runId, fence);
        const rows = pending.all(key) as Row[];
        const now = Date.now();
        for (const row of rows) take.run(now, row.id as number);
        return rows.flatMap((row) => parsed(row.body));
      }, true);
    },
    approvalAnswers(runId) {
      const key = findKey(runId);
      const map = new Map<string, ApprovalAnswer>();
      if (key === undefined) return map;
      for (const row of answers.all(key) as Row[]) for (const command of parsed(row.body)) if (command.kind === 'approve') map.set(command.approvalId, command.answer);
      return map;
    },
  };
}

function parsed(body: unknown): ControlCommand[] {
  const value = fromJson(body);
  return value.ok ? [value.value as ControlCommand] : [];
}
