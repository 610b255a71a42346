/**
 * The Postgres store's control channel (ADR/0184): commands are rows of `controls`, and each
 * insert notifies the schema's channel (`NOTIFY dualloop_<schema>, '<runId>'`) in the same
 * statement. Runs are watched through the store's one LISTEN connection
 * (src/checkpoint/postgres/postgres-listener.ts), which calls the watchers of the run named in the payload,
 * and every watcher when it was reconnected (commands sent meanwhile are rows: they are taken then)
 * or when its slow safety timer fires (ADR/0186).
 */
import type { ControlChannel, ControlCommand } from '../../contracts/control.js';
import type { ApprovalAnswer } from '../../contracts/policy.js';
import { fromJson, toJson } from '../json-codec.js';
import { sqlState, UNIQUE_VIOLATION } from './postgres-failure.js';
import { NOW_MS } from './postgres-clock.js';
import { approvalAnswered } from '../run-refusals.js';
import type { PostgresListener } from './postgres-listener.js';
import type { UnknownOutcome } from './postgres-reconnect.js';

type Row = Record<string, unknown>;

export interface PostgresControlDeps {
  /** The quoted schema. */
  readonly schema: string;
  /** The unquoted schema, for the channel's name. */
  readonly schemaName: string;
  readonly prefix: string;
  query(name: string, text: string, values: readonly unknown[], unknownOutcome?: UnknownOutcome): Promise<Row[]>;
  keyOf(runId: string, operation: string): Promise<number>;
  findKey(runId: string): Promise<number | undefined>;
  /** The store's LISTEN connection. */
  readonly listener: PostgresListener;
}

export function controlChannelName(schemaName: string): string {
  return `dualloop_${schemaName}`.slice(0, 63);
}

export function postgresControls(deps: PostgresControlDeps): ControlChannel {
  const { schema, prefix, query } = deps;
  const channel = controlChannelName(deps.schemaName);
  const watchers = new Map<string, Set<() => void>>();
  let unsubscribe: (() => void) | undefined;
  const call = (set: ReadonlySet<() => void> | undefined) => {
    for (const watcher of [...(set ?? [])]) watcher();
  };

  return {
    async sendControl(runId, command) {
      const key = await deps.keyOf(runId, 'sendControl');
      try {
        await query(
          `${prefix}_send_control`,
          `WITH sent AS (INSERT INTO ${schema}.controls (run, kind, call_id, body, created_at) VALUES ($1, $2, $3, $4, ${NOW_MS}) RETURNING id)
           SELECT pg_notify($5, $6) FROM sent`,
          [key, command.kind, command.kind === 'approve' ? command.approvalId : null, toJson(command, 'the command'), channel, runId],
          // A command whose connection died may have been stored: sending it again could steer twice.
          'fail',
        );
      } catch (error) {
        if (command.kind === 'approve' && sqlState(error) === UNIQUE_VIOLATION) throw approvalAnswered(runId, command.approvalId);
        throw error;
      }
    },
    async takeControls(runId, fence) {
      const key = await deps.findKey(runId);
      if (key === undefined) return [];
      const rows = await query(
        `${prefix}_take_controls`,
        `UPDATE ${schema}.controls SET taken_at = ${NOW_MS}
         WHERE id IN (SELECT id FROM ${schema}.controls WHERE run = $1 AND taken_at IS NULL AND kind <> 'approve' ORDER BY id FOR UPDATE SKIP LOCKED)
           AND ($2::bigint IS NULL OR EXISTS (SELECT 1 FROM ${schema}.leases WHERE run = $1 AND token = $2 AND expires_at > ${NOW_MS}))
         RETURNING id, body`,
        [key, fence ?? null],
        // Commands marked taken by a statement whose answer was lost cannot be handed out again.
        'fail',
      );
      return rows.sort((a, b) => Number(a.id) - Number(b.id)).flatMap((row) => parsed(row.body));
    },
    async approvalAnswers(runId) {
      const map = new Map<string, ApprovalAnswer>();
      const key = await deps.findKey(runId);
      if (key === undefined) return map;
      const rows = await query(`${prefix}_answers`, `SELECT body FROM ${schema}.controls WHERE run = $1 AND kind = 'approve' ORDER BY id`, [key]);
      for (const row of rows) for (const command of parsed(row.body)) if (command.kind === 'approve') map.set(command.approvalId, command.answer);
      return map;
    },
    watchControls(runId, onCommand) {
      let set = watchers.get(runId);
      if (set === undefined) watchers.set(runId, (set = new Set()));
      set.add(onCommand);
      unsubscribe ??= deps.listener.subscribe(channel, {
        notify: (payload) => call(watchers.get(payload)),
        resync: () => {
          for (const each of watchers.values()) call(each);
        },
      });
      return () => {
        set.delete(onCommand);
        if (set.size === 0) watchers.delete(runId);
        if (watchers.size === 0) {
          unsubscribe?.();
          unsubscribe = undefined;
        }
      };
    },
  };
}

function parsed(body: unknown): ControlCommand[] {
  const value = fromJson(body);
  return value.ok ? [value.value as ControlCommand] : [];
}
