import type { ConfigErrorCode, ErrorCode, EngineErrorCode, FailureCode, McpErrorCode, RunErrorCode, StoreErrorCode, WorkerErrorCode } from './contracts/error-codes.js';

/**
 * The brand every dualloop error carries, under a registry symbol: two copies of the package (two
 * versions in one `node_modules`, or an ESM and a bundled copy) share it, where `instanceof` would
 * tell their classes apart. The value is the error's family.
 */
const BRAND: unique symbol = Symbol.for('dualloop.error') as never;

export type ErrorFamily = 'config' | 'run' | 'store' | 'engine' | 'mcp' | 'worker' | 'failure';

/** What every dualloop error has: a `code` from the closed `ErrorCode` union and its family. */
export abstract class DualloopError<Code extends ErrorCode = ErrorCode> extends Error {
  readonly code: Code;
  declare readonly [BRAND]: ErrorFamily;

  protected constructor(family: ErrorFamily, name: string, code: Code, message: string, cause: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    Object.defineProperty(this, BRAND, { value: family, enumerable: false });
    this.name = name;
    this.code = code;
  }

  get family(): ErrorFamily {
    return this[BRAND];
  }
}

/** One invalid field: a dotted path (`bounds.inner.maxTurns`) and what is wrong with it. */
export interface ConfigIssue {
  readonly path: string;
  readonly message: string;
}

/**
 * Thrown only for invalid configuration, before any side effect.
 * Lists every bad field, not just the first.
 */
export class ConfigError extends DualloopError<ConfigErrorCode> {
  readonly issues: readonly ConfigIssue[];

  constructor(options: { message?: string; issues: readonly ConfigIssue[]; cause?: unknown }) {
    const list = options.issues.map((issue) => `  - ${issue.path || '(root)'}: ${issue.message}`).join('\n');
    super('config', 'ConfigError', 'config_invalid', `${options.message ?? 'Invalid configuration'}:\n${list}`, options.cause);
    this.issues = options.issues;
  }
}

/** A run cannot be started, resumed, forked or controlled (unknown run id, corrupt checkpoint, lease held). */
export class RunError extends DualloopError<RunErrorCode> {
  readonly runId: string;

  constructor(options: { code: RunErrorCode; runId: string; message: string; cause?: unknown }) {
    super('run', 'RunError', options.code, options.message, options.cause);
    this.runId = options.runId;
  }
}

/**
 * A part failed while a run was going on (a policy gate threw, an actor failed). The kernel never
 * throws it at the caller: it becomes an `error` event and an `error` stop carrying the same code.
 * The kernel's abort reasons (`task_stopped`, `run_ended`) are of this family too.
 */
export class FailureError extends DualloopError<FailureCode> {
  constructor(options: { code: FailureCode; message: string; cause?: unknown }) {
    super('failure', 'FailureError', options.code, options.message, options.cause);
  }
}

/**
 * Why a store cannot be used (ADR/0024): a file that is not a database (or a truncated or corrupt
 * one), a database written by another application or by a newer dualloop, or a write the database
 * refused. Problems with one run's data are `RunError`s instead, so that `kernel.resume` rejects
 * with the run's own code.
 */
export class StoreError extends DualloopError<StoreErrorCode> {
  /** The database file (or the Postgres schema). */
  readonly path: string;
  /** The run the failed operation was about, when there was one. */
  readonly runId: string | undefined;

  constructor(options: { code: StoreErrorCode; path: string; runId?: string; message: string; cause?: unknown }) {
    super('store', 'StoreError', options.code, options.message, options.cause);
    this.path = options.path;
    this.runId = options.runId;
  }
}

/**
 * A misuse of an engine adapter, thrown (never a run failure: those end the stream with a `done`
 * whose `stopReason` says why). `engineId` names the adapter that refused.
 */
export class EngineError extends DualloopError<EngineErrorCode> {
  readonly engineId: string;

  constructor(options: { code: EngineErrorCode; engineId: string; message: string; cause?: unknown }) {
    super('engine', 'EngineError', options.code, options.message, options.cause);
    this.engineId = options.engineId;
  }
}

/**
 * An MCP server could not be used: it did not start (bad command, exit, handshake or `tools/list`
 * failure, start timeout) or the tool set was closed. Carries the server's name; the message has
 * the tail of the server's stderr, secrets removed.
 */
export class McpError extends DualloopError<McpErrorCode> {
  readonly server: string;

  constructor(options: { code: McpErrorCode; server: string; message: string; cause?: unknown }) {
    super('mcp', 'McpError', options.code, options.message, options.cause);
    this.server = options.server;
  }
}

/**
 * A worker (`createWorker`) was misused — started again after `stop()` — or was handed a job for
 * a workflow it was not given. `workerId` names the worker.
 */
export class WorkerError extends DualloopError<WorkerErrorCode> {
  readonly workerId: string;

  constructor(options: { code: WorkerErrorCode; workerId: string; message: string; cause?: unknown }) {
    super('worker', 'WorkerError', options.code, options.message, options.cause);
    this.workerId = options.workerId;
  }
}

/** The error class a code belongs to. */
export type ErrorOfCode<Code extends ErrorCode> = Code extends ConfigErrorCode
  ? ConfigError
  : Code extends RunErrorCode
    ? RunError
    : Code extends StoreErrorCode
      ? StoreError
      : Code extends EngineErrorCode
        ? EngineError
        : Code extends McpErrorCode
          ? McpError
          : Code extends WorkerErrorCode
            ? WorkerError
            : FailureError;

/**
 * Whether `value` is an error thrown or reported by dualloop (any copy of the package), optionally
 * with the given code. Use it instead of `instanceof`, which fails across copies.
 */
export function isDualloopError(value: unknown): value is DualloopError;
export function isDualloopError<Code extends ErrorCode>(value: unknown, code: Code): value is ErrorOfCode<Code>;
export function isDualloopError(value: unknown, code?: ErrorCode): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const branded = value as { readonly [BRAND]?: unknown; readonly code?: unknown };
  if (typeof branded[BRAND] !== 'string' || typeof branded.code !== 'string') return false;
  return code === undefined || branded.code === code;
}

/** The error class of a family. */
export type ErrorOfFamily<Family extends ErrorFamily> = {
  config: ConfigError;
  run: RunError;
  store: StoreError;
  engine: EngineError;
  mcp: McpError;
  worker: WorkerError;
  failure: FailureError;
}[Family];

/** Whether `value` is a dualloop error (any copy of the package) of the given family. */
export function isDualloopErrorOf<Family extends ErrorFamily>(value: unknown, family: Family): value is ErrorOfFamily<Family> {
  return isDualloopError(value) && (value as { readonly [BRAND]: ErrorFamily })[BRAND] === family;
}

export { describeError } from './contracts/describe-error.js';
