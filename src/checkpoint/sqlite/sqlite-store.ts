import { resolve } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import { AUDITED_EVENT_TYPES, buildAudit, finishedTasks } from '../../audit/build-audit.js';
import type { KernelEvent } from '../../contracts/events.js';
import type { WorkflowResult } from '../../contracts/results.js';
import type { CheckpointEntry } from '../../contracts/checkpoint.js';
import type { LeaseResult, RunRecord, RunSummary } from '../../contracts/store.js';
import type { ToolResult } from '../../contracts/tool.js';
import type { TaskSpec } from '../../contracts/turn-protocol.js';
import { ConfigError, isDualloopErrorOf, StoreError } from '../../errors.js';
import { evalOfRow, forkOfRow, parentRow, summarizeRunRow as summarize } from '../run-row.js';
import type { WorkflowFingerprint } from '../../contracts/fingerprint.js';
import { fromJson, toJson } from '../json-codec.js';
import { runExists, runNotFound } from '../run-refusals.js';
import { rebuiltOrThrow } from '../read-checkpoint.js';
import { SqliteCheckpoints } from './sqlite-checkpoints.js';
import { sqliteControls } from './sqlite-controls.js';
import type { ControlChannel } from '../../contracts/control.js';
import { describeSqliteFailure } from './sqlite-failure.js';
import { walCheckpointer } from './sqlite-wal-checkpointer.js';
import { SqliteWriteBehind } from './sqlite-write-behind.js';
import { openDatabase } from './sqlite-schema.js';
import { prepareStatements } from './sqlite-statements.js';
import type { SynchronousStore } from '../synchronous-store.js';

export interface SqliteStoreOptions {
  /** The database file; created with its parent directories on first use. `:memory:` for tests. */
  readonly path: string;
  /** How long a write waits for another process's lock before failing (default 5000 ms). */
  readonly busyTimeoutMs?: number;
  /**
   * `normal` (default): every commit survives a crash of the process (SIGKILL included) but not
   * of the machine. `full`: commits also survive power loss, at an fsync per commit (ADR/0022).
   */
  readonly synchronous?: 'normal' | 'full';
  /**
   * Default: create the file when it does not exist, and refuse an existing empty (zero-byte) file.
   * `true`: also make an existing empty file a store. `false`: never create; a missing file is an error (ADR 0115).
   */
  readonly create?: boolean;
}

export interface SqliteStore extends SynchronousStore, ControlChannel {
  readonly kind: 'sqlite';
  /** The absolute path of the database file. */
  readonly path: string;
  /** Closes the database; later calls fail with a StoreError. Idempotent. */
  close(): void;
}

type Row = Record<string, unknown>;

/**
 * The embedded durable store on `node:sqlite`: one file in WAL mode, a versioned schema
 * (src/checkpoint/sqlite/sqlite-schema.ts), prepared statements, and synchronous methods. Checkpoints,
 * results, runs and leases are committed before the method returns; events and tool results ride
 * with the next of those, or are committed when the macrotask ends or the next tool starts
 * (ADR/0020), so nothing handed over before a checkpoint is lost to a SIGKILL. Rows are JSON;
 * what comes back is a new object.
 */
export function sqliteStore(options: SqliteStoreOptions): SqliteStore {
  const settings = validateOptions(options);
  const path = settings.path === ':memory:' ? ':memory:' : resolve(settings.path);
  const database: DatabaseSync = openDatabase({ path, busyTimeoutMs: settings.busyTimeoutMs, synchronous: settings.synchronous, ...(settings.create === undefined ? {} : { create: settings.create }) });
  const statements = prepareStatements(database);
  const walCheckpoints = walCheckpointer(database, path, settings.busyTimeoutMs);
  const keys = new Map<string, number>();

  const guard = <T>(operation: string, runId: string | undefined, action: () => T): T => {
    try {
      return action();
    } catch (error) {
      if (isDualloopErrorOf(error, 'run') || isDualloopErrorOf(error, 'store')) throw error;
      if (!database.isOpen) throw new StoreError({ code: 'store_failed', path, message: `sqlite store ${path}: ${operation} after close()`, cause: error });
      throw describeSqliteFailure(error, { path, operation, ...(runId === undefined ? {} : { runId }) });
    }
  };
  const transaction = <T>(action: () => T): T => {
    statements.begin.run();
    try {
      const value = action();
      statements.commit.run();
      return value;
    } catch (error) {
      if (database.isTransaction) statements.rollback.run();
      throw error;
    }
  };
  const queue = new SqliteWriteBehind(statements, transaction, () => walCheckpoints.afterCommit());
  const findKey = (runId: string): number | undefined => {
    const cached = keys.get(runId);
    if (cached !== undefined) return cached;
    const row = statements.runKey.get(runId) as Row | undefined;
    if (row === undefined) return undefined;
    const key = Number(row.id);
    keys.set(runId, key);
    return key;
  };
  const keyOf = (runId: string, operation: string): number => {
    const key = findKey(runId);
    if (key === undefined) throw runNotFound(runId, `sqlite store ${path}`, operation);
    return key;
  };
  const parse = (runId: string, what: string, text: unknown): unknown => {
    const parsed = fromJson(text);
    if (parsed.ok) return parsed.value;
    throw new StoreError({ code: 'store_corrupt', path, runId, message: `sqlite store ${path}: run ${runId}: the stored ${what} is not valid JSON (${parsed.message})` });
  };

  const checkpoints = new SqliteCheckpoints(statements, queue, path);
  const loadCheckpoint = (runId: string, at?: { readonly sequence: number }) =>
    guard('loading the checkpoint', runId, () => {
      const key = findKey(runId);
      return key === undefined ? undefined : checkpoints.load(key, runId, at?.sequence);
    });
  const loadResult = (runId: string): WorkflowResult | undefined =>
    guard('loading the result', runId, () => {
      const key = findKey(runId);
      const row = key === undefined ? undefined : (statements.loadResult.get(key) as Row | undefined);
      return row === undefined ? undefined : (parse(runId, 'result', row.body) as WorkflowResult);
    });
  const getRun = (runId: string): RunRecord | undefined =>
    guard('reading the run record', runId, () => {
      const row = statements.getRun.get(runId) as Row | undefined;
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

  const controls = sqliteControls(database, queue, keyOf, findKey);

  return {
    kind: 'sqlite',
    path,
    sendControl: (runId, command) => guard('sending a command', runId, () => controls.sendControl(runId, command)),
    takeControls: (runId, fence) => guard('taking commands', runId, () => controls.takeControls(runId, fence)),
    approvalAnswers: (runId) => guard('reading approval answers', runId, () => controls.approvalAnswers(runId)),
    createRun: (record) =>
      guard('creating the run', record.runId, () => {
        if (findKey(record.runId) !== undefined) throw runExists(record.runId, `sqlite store ${path}`);
        const tasks = toJson(record.tasks, `run ${record.runId}: the task list`);
        const inserted = queue.commitWith(() =>
          statements.insertRun.run(
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
          ),
        );
        keys.set(record.runId, Number(inserted.lastInsertRowid));
      }),
    getRun,
    saveCheckpoint: (entry: CheckpointEntry, fence?: number) =>
      guard('saving a checkpoint', entry.runId, () => {
        checkpoints.save(keyOf(entry.runId, 'saveCheckpoint'), entry, fence);
      }),
    loadCheckpoint,
    listCheckpoints: (runId) =>
      guard('listing the checkpoints', runId, () => {
        const key = findKey(runId);
        return key === undefined ? [] : checkpoints.list(key);
      }),
    recordToolResult: (runId, result: ToolResult, fence?: number) =>
      guard('recording a tool result', runId, () => {
        const body = toJson(result, `run ${runId}: the result of tool call ${result.toolCallId}`);
        queue.recordToolResult(keyOf(runId, 'recordToolResult'), runId, result.toolCallId, body, fence);
      }),
    getToolResult: (runId, toolCallId) =>
      guard('reading a tool result', runId, () => {
        const key = findKey(runId);
        if (key === undefined) return undefined;
        const body = queue.queuedToolResult(key, toolCallId) ?? (statements.getToolResult.get(key, toolCallId) as Row | undefined)?.body;
        return body === undefined ? undefined : (parse(runId, `result of tool call ${toolCallId}`, body) as ToolResult);
      }),
    appendEvent: (event: KernelEvent, fence?: number) =>
      guard('appending an event', event.runId, () => {
        queue.appendEvent(keyOf(event.runId, 'appendEvent'), event, fence);
      }),
    readEvents: (runId, afterSeq = 0) =>
      guard('reading events', runId, () => {
        const key = findKey(runId);
        if (key === undefined) return [];
        queue.flush();
        return (statements.readEvents.all(key, afterSeq) as Row[]).map((row) => parse(runId, 'event', row.body) as KernelEvent);
      }),
    saveResult: (result: WorkflowResult, fence?: number) =>
      guard('saving the result', result.runId, () => {
        const body = toJson(result, `run ${result.runId}: the result`);
        const key = keyOf(result.runId, 'saveResult');
        queue.commitWith(
          () => {
            queue.requireFence(key, result.runId, fence);
            statements.upsertResult.run(key, toJson(result.stop, 'the stop condition'), finishedTasks(result), body);
          },
          fence !== undefined,
        );
        queue.forget(key);
        checkpoints.forget(key);
      }),
    loadResult,
    listRuns: ({ limit = 20 } = {}) =>
      guard('listing runs', undefined, () => (statements.listRuns.all(limit) as Row[]).map((row) => summarize(row, (text) => parse(String(row.run_id), 'run summary', text)))),
    acquireLease: (runId, holder, ttlMs, options = {}): LeaseResult =>
      guard('acquiring the lease', runId, () => {
        const key = keyOf(runId, 'acquireLease');
        return queue.commitWith((): LeaseResult => {
          const taken = statements.acquireLease.get(key, holder, Date.now(), ttlMs, options.takeOverFrom ?? null) as Row | undefined;
          if (taken !== undefined) return { acquired: true, token: Number(taken.token), expiresAt: Number(taken.expires_at) };
          const row = statements.getLease.get(key) as Row;
          return { acquired: false, holder: String(row.holder), expiresAt: Number(row.expires_at) };
        }, true);
      }),
    updateFingerprint: (runId, fingerprint, fence) =>
      guard('updating the fingerprint', runId, () => {
        const key = keyOf(runId, 'updateFingerprint');
        const body = toJson(fingerprint, `run ${runId}: the fingerprint`);
        queue.commitWith(() => {
          queue.requireFence(key, runId, fence);
          statements.updateFingerprint.run(body, key);
        }, fence !== undefined);
      }),
    releaseLease: (runId, holder) =>
      guard('releasing the lease', runId, () => {
        const key = findKey(runId);
        if (key !== undefined) queue.commitWith(() => statements.releaseLease.run(key, holder));
      }),
    audit: (runId) =>
      guard('building the audit', runId, () => {
        const record = getRun(runId);
        if (record === undefined) return undefined;
        const key = keyOf(runId, 'audit');
        const result = loadResult(runId);
        queue.flush();
        const events = (statements.auditedEvents.all(key, ...AUDITED_EVENT_TYPES) as Row[]).map((row) => parse(runId, 'event', row.body) as KernelEvent);
        const eventCount = Number((statements.countEvents.get(key) as Row).count);
        const progress = result === undefined ? rebuiltOrThrow(loadCheckpoint(runId), runId)?.view.progress : undefined;
        const checkpointSequence = checkpoints.list(key).at(-1)?.sequence;
        return buildAudit({ record, result, progress, events, eventCount, storeKind: 'sqlite', checkpointSequence });
      }),
    close() {
      if (!database.isOpen) return;
      queue.cancelSchedule();
      try {
        guard('writing the last events', undefined, () => queue.flush());
      } finally {
        walCheckpoints.close();
        database.close();
      }
    },
  };
}


function validateOptions(options: SqliteStoreOptions): Required<Omit<SqliteStoreOptions, 'create'>> & Pick<SqliteStoreOptions, 'create'> {
  const issues: { path: string; message: string }[] = [];
  const value = (typeof options === 'object' && options !== null ? options : {}) as Partial<SqliteStoreOptions>;
  if (typeof value.path !== 'string' || value.path.trim() === '') issues.push({ path: 'path', message: 'must be a non-empty file path (or ":memory:")' });
  const busy = value.busyTimeoutMs ?? 5000;
  if (typeof busy !== 'number' || !Number.isInteger(busy) || busy < 0) issues.push({ path: 'busyTimeoutMs', message: 'must be a non-negative integer (milliseconds)' });
  const synchronous = value.synchronous ?? 'normal';
  if (synchronous !== 'normal' && synchronous !== 'full') issues.push({ path: 'synchronous', message: 'must be "normal" or "full"' });
  if (value.create !== undefined && typeof value.create !== 'boolean') issues.push({ path: 'create', message: 'must be true or false' });
  if (issues.length > 0) throw new ConfigError({ message: 'Invalid sqliteStore options', issues });
  return { path: value.path as string, busyTimeoutMs: busy, synchronous, ...(value.create === undefined ? {} : { create: value.create }) };
}
