import { z } from 'zod';
import { ConfigError } from '../errors.js';
import type { KernelOptions } from '../kernel/options.js';
import { LEASE_TTL_MS } from '../kernel/run-lease.js';
import { TaskInputSchema, type TaskInput } from '../kernel/tasks.js';
import { zodIssues } from '../contracts/zod-issues.js';
import { lazySchema } from '../contracts/lazy-schema.js';
import { RedactValuesSchema } from '../redaction/secret-values.js';

/** A workflow's name: it names its pg-boss queue (`dualloop.<workflow>`), so it keeps to pg-boss's characters. */
const WorkflowName = lazySchema(() => z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/, 'must be 1–100 letters, digits, "_", "." or "-", starting with a letter or digit'));
const RunId = lazySchema(() => z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/, 'must be 1–128 letters, digits, ".", "_" or "-"'));
const SchemaName = lazySchema(() => z.string().regex(/^[a-z_][a-z0-9_]{0,62}$/, 'must be a lower-case Postgres identifier'));
const ConnectionString = lazySchema(() => z.string().regex(/^postgres(ql)?:\/\//i, 'must be a postgres:// URL'));

/** Where runs and their queue live: the store's schema and pg-boss's. */
const Placement = lazySchema(() => ({
  connectionString: ConnectionString(),
  /** The store's schema (`postgresStore`), default `dualloop`. */
  schema: SchemaName().optional(),
  /** pg-boss's schema, default `pgboss`. */
  queueSchema: SchemaName().optional(),
}));

/** What a workflow builder receives: the run it builds the kernel options for (ADR/0200). */
export interface WorkflowRunInfo {
  readonly workflow: string;
  readonly runId: string;
  readonly workerId: string;
}

/** Builds the kernel options of one workflow: code stays in the worker; only names, ids and tasks travel. */
export type WorkflowBuilder = (run: WorkflowRunInfo) => KernelOptions | Promise<KernelOptions>;

export interface SubmitRunOptions {
  readonly connectionString: string;
  readonly workflow: string;
  /** The run's tasks: required for a new run; ignored when the run already exists (its next slice is queued). */
  readonly tasks?: readonly TaskInput[];
  readonly runId?: string;
  /** pg-boss priority: higher is fetched first. */
  readonly priority?: number;
  /**
   * Secret values (at least 4 characters each) to replace by `[redacted]` in the tasks before they
   * are stored and queued; key-shaped tokens are replaced always (ADR/0305). The worker runs the
   * tasks as stored.
   */
  readonly redact?: readonly string[];
  readonly schema?: string;
  readonly queueSchema?: string;
}

const SubmitSchema = lazySchema(() => z.strictObject({
  ...Placement(),
  workflow: WorkflowName(),
  tasks: z.array(TaskInputSchema()).min(1, 'must hold at least one task').optional(),
  runId: RunId().optional(),
  priority: z.number().int().optional(),
  redact: RedactValuesSchema().optional(),
}));

export interface WorkerOptions {
  readonly connectionString: string;
  readonly workflows: Readonly<Record<string, WorkflowBuilder>>;
  /** Slices run at once by this worker (default 1). */
  readonly concurrency?: number;
  /** Names the worker in logs and in `onSlice` (default `<host>/pid-<pid>`). */
  readonly workerId?: string;
  /** The runs' lease (default 30,000 ms), renewed every third of it while a slice runs. */
  readonly leaseMs?: number;
  /** How long `stop({ drain: true })` waits for each run's next turn boundary before suspending it anyway (default 10,000 ms). */
  readonly drainTimeoutMs?: number;
  /** Crashed slices of one run retried before it is dead-lettered (default 3). Set on the workflows' queues. */
  readonly retryLimit?: number;
  /** First retry delay in seconds, doubled per retry up to 60 (default 1). */
  readonly retryDelaySeconds?: number;
  /** pg-boss job heartbeat (seconds, at least 10, default 10): a killed worker's slice is handed on this long after its last heartbeat. */
  readonly heartbeatSeconds?: number;
  readonly schema?: string;
  readonly queueSchema?: string;
  /** Told about each slice as it ends (for logs, tests and the demo). Must not throw. */
  readonly onSlice?: (slice: SliceReport) => void;
}

/** One slice as the worker saw it end. */
export interface SliceReport {
  readonly runId: string;
  readonly workflow: string;
  readonly workerId: string;
  /** `ended`: the run ended (or parked); `suspended`: handed back at a drain; `held`: another process held it, retried later; `finished`: nothing left to run; `lease_lost`: this worker was paused past the run's lease; the run's next slice was queued (ADR/0324). */
  readonly outcome: 'ended' | 'suspended' | 'held' | 'finished' | 'lease_lost';
  readonly stop?: { readonly reason: string; readonly detail: string };
}

const WorkerSchema = lazySchema(() => z.strictObject({
  ...Placement(),
  workflows: z.record(WorkflowName(), z.custom<WorkflowBuilder>((value) => typeof value === 'function', 'must be a function (run) => kernel options')).refine((value) => Object.keys(value).length > 0, 'must name at least one workflow'),
  concurrency: z.number().int().min(1).max(1000).optional(),
  workerId: z.string().min(1).max(200).optional(),
  leaseMs: z.number().int().min(1_000, 'must be at least 1,000 ms').optional(),
  drainTimeoutMs: z.number().int().min(0).optional(),
  retryLimit: z.number().int().min(0).max(100).optional(),
  retryDelaySeconds: z.number().int().min(0).max(3_600).optional(),
  heartbeatSeconds: z.number().int().min(10, 'must be at least 10 (pg-boss)').max(3_600).optional(),
  onSlice: z.custom<(slice: SliceReport) => void>((value) => typeof value === 'function', 'must be a function').optional(),
}));

export interface QueuePlacement {
  readonly connectionString: string;
  readonly schema: string;
  readonly queueSchema: string;
}

export type SubmitSettings = QueuePlacement & Omit<SubmitRunOptions, 'schema' | 'queueSchema' | 'connectionString'>;

export type WorkerSettings = QueuePlacement &
  Required<Pick<WorkerOptions, 'concurrency' | 'workerId' | 'leaseMs' | 'drainTimeoutMs' | 'retryLimit' | 'retryDelaySeconds' | 'heartbeatSeconds'>> &
  Pick<WorkerOptions, 'workflows' | 'onSlice'>;

function placement(value: { connectionString: string; schema?: string | undefined; queueSchema?: string | undefined }): QueuePlacement {
  return { connectionString: value.connectionString, schema: value.schema ?? 'dualloop', queueSchema: value.queueSchema ?? 'pgboss' };
}

/** Validates `submitRun`'s options; throws one ConfigError naming every bad field. */
export function resolveSubmitOptions(options: SubmitRunOptions): SubmitSettings {
  const parsed = SubmitSchema().safeParse(options);
  if (!parsed.success) throw new ConfigError({ message: 'Invalid submitRun options', issues: zodIssues(parsed.error) });
  const { schema: _schema, queueSchema: _queueSchema, ...rest } = parsed.data;
  return { ...rest, ...placement(parsed.data) } as SubmitSettings;
}

/** Validates `createWorker`'s options; throws one ConfigError naming every bad field. */
export function resolveWorkerOptions(options: WorkerOptions, defaultWorkerId: string): WorkerSettings {
  const parsed = WorkerSchema().safeParse(options);
  if (!parsed.success) throw new ConfigError({ message: 'Invalid createWorker options', issues: zodIssues(parsed.error) });
  const value = parsed.data;
  return {
    ...placement(value),
    workflows: options.workflows,
    concurrency: value.concurrency ?? 1,
    workerId: value.workerId ?? defaultWorkerId,
    leaseMs: value.leaseMs ?? LEASE_TTL_MS,
    drainTimeoutMs: value.drainTimeoutMs ?? 10_000,
    retryLimit: value.retryLimit ?? 3,
    retryDelaySeconds: value.retryDelaySeconds ?? 1,
    heartbeatSeconds: value.heartbeatSeconds ?? 10,
    ...(options.onSlice === undefined ? {} : { onSlice: options.onSlice }),
  };
}
