import { AUDITED_EVENT_TYPES, buildAudit, finishedTasks } from '../../audit/build-audit.js';
import type { CheckpointIndexEntry, CheckpointKind, StoredCheckpoints } from '../../contracts/checkpoint.js';
import type { KernelEvent } from '../../contracts/events.js';
import type { WorkflowResult } from '../../contracts/results.js';
import type { CheckpointStore, RunRecord, RunSummary } from '../../contracts/store.js';
import type { TaskSpec } from '../../contracts/turn-protocol.js';
import { isDualloopErrorOf, RunError, StoreError } from '../../errors.js';
import { evalOfRow, forkOfRow, parentRow, summarizeRunRow as summarize } from '../run-row.js';
import { fromJson, toJson } from '../json-codec.js';
import { describePostgresFailure, describeTarget, sqlState, UNIQUE_VIOLATION } from './postgres-failure.js';
import { quoteIdentifier } from './postgres-schema.js';
import { givenPool, openPostgresConnections } from './postgres-connection.js';
import { PostgresRunWrites } from './postgres-writes.js';
import { GroupCommit } from './postgres-group-commit.js';
import { postgresControls } from './postgres-controls.js';
import { postgresLeases } from './postgres-leases.js';
import { postgresRateWindows } from './postgres-rate-windows.js';
import { eventChannelName, postgresEventFeed } from './postgres-events.js';
import { postgresListener } from './postgres-listener.js';
import { withReconnect, type UnknownOutcome } from './postgres-reconnect.js';
import type { EventFeed } from '../../contracts/event-feed.js';
import type { ControlChannel } from '../../contracts/control.js';
import type { SharedRateWindows } from '../../contracts/rate-windows.js';
import { rebuiltOrThrow } from '../read-checkpoint.js';
import { runExists, runNotFound } from '../run-refusals.js';
import type { WorkflowFingerprint } from '../../contracts/fingerprint.js';
import { validatePostgresOptions, type PostgresConnection, type PostgresStoreOptions } from './postgres-options.js';

export type { PostgresConnection, PostgresPool, PostgresStoreOptions } from './postgres-options.js';

export interface PostgresStore extends CheckpointStore, ControlChannel, EventFeed, SharedRateWindows {
  readonly kind: 'postgres';
  readonly schema: string;
  /** `postgres://host:port/database`, without credentials. */
  readonly where: string;
  /** Resolves once connected and migrated; rejects with the StoreError that every call would give. */
  ready(): Promise<void>;
  /** Writes what is queued and ends the pool the store opened (a pool passed in is left open). */
  close(): Promise<void>;
}

type Row = Record<string, unknown>;

/**
 * The shared durable store on PostgreSQL through the `pg` driver, loaded when the first store is
 * made (the package's root entry stays light). Runs, checkpoint history (format 2, ADR/0120),
 * tool results, events, results and fenced leases live in one schema, created and migrated by the
 * store (src/checkpoint/postgres/postgres-schema.ts). Each write of a run is one statement, in the order
 * the kernel made it (src/checkpoint/postgres/postgres-writes.ts, ADR/0181). Every method is asynchronous.
 */
export function postgresStore(connection: PostgresConnection, options: PostgresStoreOptions = {}): PostgresStore {
  const settings = validatePostgresOptions(connection, options);
  const schema = quoteIdentifier(settings.schema);
  const given = givenPool(connection);
  const where = `${describeTarget('connectionString' in connection ? connection.connectionString : undefined, (given as { options?: Row } | undefined)?.options ?? {})} schema ${settings.schema}`;
  const keys = new Map<string, number>();
  /** Runs whose `createRun` is under way: the kernel emits its first events before it resolves. */
  const creating = new Map<string, Promise<unknown>>();
  let closed = false;

  const { opened, connectListener } = openPostgresConnections(connection, settings, where);

  const query = async (name: string, text: string, values: readonly unknown[], unknownOutcome: UnknownOutcome = 'retry', maybeRan = false): Promise<Row[]> => {
    if (closed) throw new StoreError({ code: 'store_failed', path: where, message: `postgres store ${where}: used after close()` });
    const pool = await opened;
    // A server that went away (a restart) is waited for, up to reconnectMs (ADR/0187).
    return withReconnect({ reconnectMs: settings.reconnectMs, closed: () => closed, unknownOutcome, maybeRan, committed: (rows) => rows.map((row) => ({ ...row })) }, async () => {
      const result = await pool.query({ name, text, values: values as unknown[] });
      return result.rows as Row[];
    });
  };
  const prefix = `dl_${settings.schema}`;
  // The runs' writes commit in groups when many arrive at once (ADR/0490); everything else goes alone.
  const groups = settings.groupCommit ? new GroupCommit(() => opened, query) : undefined;
  const writes = new PostgresRunWrites(schema, prefix, query, eventChannelName(settings.schema), (name, text, values, unknownOutcome = 'retry') => {
    if (groups === undefined || closed) return query(name, text, values, unknownOutcome);
    return groups.execute(name, text, values, unknownOutcome);
  });

  const guard = async <T>(operation: string, runId: string | undefined, action: () => Promise<T>): Promise<T> => {
    try {
      return await action();
    } catch (error) {
      if (isDualloopErrorOf(error, 'run') || isDualloopErrorOf(error, 'store')) throw error;
      throw describePostgresFailure(error, { where, operation, ...(runId === undefined ? {} : { runId }) });
    }
  };
  const findKey = async (runId: string): Promise<number | undefined> => {
    if (!keys.has(runId)) await creating.get(runId)?.catch(() => undefined);
    const cached = keys.get(runId);
    if (cached !== undefined) return cached;
    const rows = await query(`${prefix}_key`, `SELECT id FROM ${schema}.runs WHERE run_id = $1`, [runId]);
    if (rows[0] === undefined) return undefined;
    const key = Number(rows[0].id);
    keys.set(runId, key);
    return key;
  };
  const keyOf = async (runId: string, operation: string): Promise<number> => {
    const key = await findKey(runId);
    if (key === undefined) throw runNotFound(runId, `postgres store ${where}`, operation);
    return key;
  };
  const parse = (runId: string, what: string, text: unknown): unknown => {
    const parsed = fromJson(text);
    if (parsed.ok) return parsed.value;
    throw new StoreError({ code: 'store_corrupt', path: where, runId, message: `postgres store ${where}: run ${runId}: the stored ${what} is not valid JSON (${parsed.message})` });
  };
  const parseEntry = (runId: string, what: string, text: unknown): unknown => {
    const parsed = fromJson(text);
    if (parsed.ok) return parsed.value;
    throw new RunError({ code: 'checkpoint_corrupt', runId, message: `run ${runId}: ${what} in ${where} is not valid JSON (${parsed.message}); the run was not restarted` });
  };

  const getRun = (runId: string) =>
    guard('reading the run record', runId, async (): Promise<RunRecord | undefined> => {
      await creating.get(runId)?.catch(() => undefined);
      const rows = await query(`${prefix}_get_run`, `SELECT run_id, name, options_digest, tasks, created_at, fork_of_run_id, fork_of_at, parent_run_id, parent_tool_call_id, fingerprint, eval_of_run_id, eval_of_suite FROM ${schema}.runs WHERE run_id = $1`, [runId]);
      const row = rows[0];
      if (row === undefined) return undefined;
      return {
        runId: String(row.run_id),
        ...(row.name === null ? {} : { name: String(row.name) }),
        optionsDigest: String(row.options_digest),
        tasks: parse(runId, 'task list', row.tasks) as TaskSpec[],
        createdAt: Number(row.created_at),
        ...forkOfRow(row, (text) => parse(runId, 'fork point', text)),
        ...parentRow(row),
        ...evalOfRow(row),
        ...(row.fingerprint === null || row.fingerprint === undefined ? {} : { fingerprint: parse(runId, 'fingerprint', row.fingerprint) as WorkflowFingerprint }),
      };
    });
  const loadResult = (runId: string) =>
    guard('loading the result', runId, async (): Promise<WorkflowResult | undefined> => {
      const key = await findKey(runId);
      if (key === undefined) return undefined;
      await writes.settle(runId);
      const rows = await query(`${prefix}_result`, `SELECT body FROM ${schema}.results WHERE run = $1`, [key]);
      return rows[0] === undefined ? undefined : (parse(runId, 'result', rows[0].body) as WorkflowResult);
    });
  const loadCheckpoint = (runId: string, at?: { readonly sequence: number }) =>
    guard('loading the checkpoint', runId, async (): Promise<StoredCheckpoints | undefined> => {
      const key = await findKey(runId);
      if (key === undefined) return undefined;
      await writes.settle(runId);
      const point = (
        await query(`${prefix}_point`, `SELECT sequence, tasks_done FROM ${schema}.checkpoint_entries WHERE run = $1 AND sequence <= $2 ORDER BY sequence DESC LIMIT 1`, [
          key,
          at?.sequence ?? 2_147_483_647,
        ])
      )[0];
      if (point === undefined) return undefined;
      const entries = await query(
        `${prefix}_history`,
        `SELECT sequence, body FROM ${schema}.checkpoint_entries WHERE run = $1 AND sequence <= $2
           AND sequence >= coalesce((SELECT max(sequence) FROM ${schema}.checkpoint_entries WHERE run = $1 AND snapshot AND sequence <= $2), 0)
         ORDER BY sequence`,
        [key, point.sequence],
      );
      const results = await query(`${prefix}_committed`, `SELECT position, body FROM ${schema}.checkpoint_results WHERE run = $1 AND position < $2 ORDER BY position`, [key, point.tasks_done]);
      return {
        entries: entries.map((row) => parseEntry(runId, `checkpoint #${String(row.sequence)}`, row.body)),
        results: results.map((row) => parseEntry(runId, `task result #${Number(row.position) + 1}`, row.body)),
      };
    });

  const createRun = (record: RunRecord) =>
    guard('creating the run', record.runId, async () => {
      const tasks = toJson(record.tasks, `run ${record.runId}: the task list`);
      try {
        const rows = await query(
          `${prefix}_create_run`,
          `INSERT INTO ${schema}.runs (run_id, name, options_digest, tasks, tasks_total, created_at, fork_of_run_id, fork_of_at, parent_run_id, parent_tool_call_id, fingerprint, eval_of_run_id, eval_of_suite) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) RETURNING id`,
          [
            record.runId,
            record.name ?? null,
            record.optionsDigest,
            tasks,
            record.tasks.length,
            record.createdAt,
            record.forkOf?.runId ?? null,
            record.forkOf === undefined ? null : toJson(record.forkOf.at, `run ${record.runId}: the fork point`),
            record.parent?.runId ?? null,
            record.parent?.toolCallId ?? null,
            record.fingerprint === undefined ? null : toJson(record.fingerprint, `run ${record.runId}: the fingerprint`),
            record.evalOf?.runId ?? null,
            record.evalOf?.suite ?? null,
          ],
        );
        const key = Number(rows[0]!.id);
        keys.set(record.runId, key);
        writes.created(record.runId, key);
      } catch (error) {
        if (sqlState(error) === UNIQUE_VIOLATION) throw runExists(record.runId, `postgres store ${where}`);
        throw error;
      }
    });

  const listener = postgresListener({
    safetyPollMs: settings.safetyPollMs,
    connect: connectListener,
  });
  const controls = postgresControls({ schema, schemaName: settings.schema, prefix, query, keyOf, findKey, listener });
  const events = postgresEventFeed({ schema, schemaName: settings.schema, prefix, listener, findKey, query });
  const rates = postgresRateWindows(() => opened, schema);
  const leases = postgresLeases({ schema, prefix, query, keyOf, findKey });

  return {
    kind: 'postgres',
    sendControl: (runId, command) => guard('sending a command', runId, () => Promise.resolve(controls.sendControl(runId, command))),
    takeControls: (runId, fence) => guard('taking commands', runId, () => Promise.resolve(controls.takeControls(runId, fence))),
    approvalAnswers: (runId) => guard('reading approval answers', runId, () => Promise.resolve(controls.approvalAnswers(runId))),
    watchControls: (runId, onCommand) => controls.watchControls!(runId, onCommand),
    watchEvents: (runId, onAppended) => events.watchEvents(runId, onAppended),
    takeRate: (key, limit, tokens) => guard('counting a rate-limited call', undefined, () => rates.takeRate(key, limit, tokens)),
    settleRate: (key, id, tokens) => guard('settling a rate-limited call', undefined, () => rates.settleRate(key, id, tokens)),
    pauseRate: (key, waitMs) => guard('pausing a rate limit', undefined, () => rates.pauseRate(key, waitMs)),
    schema: settings.schema,
    where,
    ready: async () => {
      await opened;
    },
    createRun: (record) => {
      const created = createRun(record);
      creating.set(record.runId, created);
      void created.then(
        () => creating.delete(record.runId),
        () => creating.delete(record.runId),
      );
      return created;
    },
    getRun,
    saveCheckpoint: (entry, fence) =>
      guard('saving a checkpoint', entry.runId, async () => writes.saveCheckpoint(writes.slot(entry.runId, await keyOf(entry.runId, 'saveCheckpoint')), entry, fence)),
    loadCheckpoint,
    listCheckpoints: (runId) =>
      guard('listing the checkpoints', runId, async (): Promise<CheckpointIndexEntry[]> => {
        const key = await findKey(runId);
        if (key === undefined) return [];
        await writes.settle(runId);
        const rows = await query(
          `${prefix}_list_entries`,
          `SELECT sequence, kind, version, saved_at, event_seq, task_id, task_index, turn, tasks_done, snapshot FROM ${schema}.checkpoint_entries WHERE run = $1 ORDER BY sequence`,
          [key],
        );
        return rows.map((row) => ({
          sequence: Number(row.sequence),
          kind: String(row.kind) as CheckpointKind,
          version: Number(row.version),
          savedAt: Number(row.saved_at),
          eventSeq: Number(row.event_seq),
          ...(row.task_id === null ? {} : { taskId: String(row.task_id) }),
          ...(row.task_index === null ? {} : { taskIndex: Number(row.task_index) }),
          ...(row.turn === null ? {} : { turn: Number(row.turn) }),
          tasksDone: Number(row.tasks_done),
          snapshot: row.snapshot === true,
        }));
      }),
    recordToolResult: (runId, result, fence) =>
      guard('recording a tool result', runId, async () => {
        const body = toJson(result, `run ${runId}: the result of tool call ${result.toolCallId}`);
        await writes.recordToolResult(writes.slot(runId, await keyOf(runId, 'recordToolResult')), result.toolCallId, body, fence);
      }),
    getToolResult: (runId, toolCallId) =>
      guard('reading a tool result', runId, async () => {
        const key = await findKey(runId);
        if (key === undefined) return undefined;
        const body =
          writes.queuedToolResult(runId, toolCallId) ??
          (await query(`${prefix}_tool_result`, `SELECT body FROM ${schema}.tool_results WHERE run = $1 AND tool_call_id = $2`, [key, toolCallId]))[0]?.body;
        return body === undefined ? undefined : (parse(runId, `result of tool call ${toolCallId}`, body) as never);
      }),
    appendEvent: (event: KernelEvent, fence?: number) =>
      guard('appending an event', event.runId, async () => writes.appendEvent(writes.slot(event.runId, await keyOf(event.runId, 'appendEvent')), event, fence)),
    readEvents: (runId, afterSeq = 0) =>
      guard('reading events', runId, async (): Promise<KernelEvent[]> => {
        const key = await findKey(runId);
        if (key === undefined) return [];
        await writes.settle(runId);
        const rows = await query(`${prefix}_events`, `SELECT body FROM ${schema}.events WHERE run = $1 AND seq > $2 ORDER BY seq`, [key, afterSeq]);
        return rows.map((row) => parse(runId, 'event', row.body) as KernelEvent);
      }),
    saveResult: (result, fence) =>
      guard('saving the result', result.runId, async () => {
        const body = toJson(result, `run ${result.runId}: the result`);
        const slot = writes.slot(result.runId, await keyOf(result.runId, 'saveResult'));
        await writes.saveResult(slot, { stop: toJson(result.stop, 'the stop condition'), tasksDone: finishedTasks(result), body }, fence);
      }),
    loadResult,
    listRuns: ({ limit = 20 } = {}) =>
      guard('listing runs', undefined, async (): Promise<RunSummary[]> => {
        const rows = await query(
          `${prefix}_list_runs`,
          `SELECT r.run_id, r.name, r.created_at, r.tasks_total, r.fork_of_run_id, r.fork_of_at, r.parent_run_id, r.parent_tool_call_id, r.eval_of_run_id, r.eval_of_suite, res.stop AS result_stop, res.tasks_done AS result_done,
                  (SELECT c.tasks_done FROM ${schema}.checkpoint_entries c WHERE c.run = r.id ORDER BY c.sequence DESC LIMIT 1) AS checkpoint_done
           FROM ${schema}.runs r LEFT JOIN ${schema}.results res ON res.run = r.id
           ORDER BY r.created_at DESC, r.id DESC LIMIT $1`,
          [limit],
        );
        return rows.map((row) => summarize(row, (text) => parse(String(row.run_id), 'stop condition', text)));
      }),
    acquireLease: (runId, holder, ttlMs, leaseOptions = {}) => guard('acquiring the lease', runId, () => leases.acquireLease(runId, holder, ttlMs, leaseOptions.takeOverFrom)),
    updateFingerprint: (runId, fingerprint, fence) => guard('updating the fingerprint', runId, () => leases.updateFingerprint(runId, fingerprint, fence)),
    releaseLease: (runId, holder) => guard('releasing the lease', runId, () => leases.releaseLease(runId, holder)),
    audit: (runId) =>
      guard('building the audit', runId, async () => {
        const record = await getRun(runId);
        if (record === undefined) return undefined;
        const key = await keyOf(runId, 'audit');
        const result = await loadResult(runId);
        const events = (
          await query(`${prefix}_audited`, `SELECT body FROM ${schema}.events WHERE run = $1 AND type = ANY($2::text[]) ORDER BY seq`, [key, [...AUDITED_EVENT_TYPES]])
        ).map((row) => parse(runId, 'event', row.body) as KernelEvent);
        const eventCount = Number((await query(`${prefix}_count`, `SELECT count(*) AS count FROM ${schema}.events WHERE run = $1`, [key]))[0]?.count ?? 0);
        const progress = result === undefined ? rebuiltOrThrow(await loadCheckpoint(runId), runId)?.view.progress : undefined;
        const latest = (await query(`${prefix}_latest_entry`, `SELECT max(sequence) AS sequence FROM ${schema}.checkpoint_entries WHERE run = $1`, [key]))[0]?.sequence;
        const checkpointSequence = latest === null || latest === undefined ? undefined : Number(latest);
        return buildAudit({ record, result, progress, events, eventCount, storeKind: 'postgres', checkpointSequence });
      }),
    async close() {
      if (closed) return;
      await writes.settleAll();
      closed = true;
      await listener.close();
      const pool = await opened.catch(() => undefined);
      if (given === undefined) await pool?.end();
    },
  };
}
