/**
 * The pg-boss side of workers (ADR/0200): one queue per workflow (`dualloop.<workflow>`), policy
 * `stately` with `singletonKey` = runId, so a run has at most one slice queued and one active; a
 * shared dead-letter queue (`dualloop.dead`) takes the slices whose retries are spent. pg-boss is
 * imported here only, when a submitter or a worker starts: importing dualloop does not load it.
 */
import type { PgBoss, Queue } from 'pg-boss';
import { z } from 'zod';
import { lazySchema } from '../contracts/lazy-schema.js';
import { TaskInputSchema, type TaskInput } from '../kernel/tasks.js';
import type { QueuePlacement } from './worker-settings.js';

export const DEAD_LETTER_QUEUE = 'dualloop.dead';

export function queueOf(workflow: string): string {
  return `dualloop.${workflow}`;
}

/** What travels through the queue: names, ids and tasks, never code. */
export const SliceData = lazySchema(() => z.object({
  workflow: z.string(),
  runId: z.string(),
  tasks: z.array(TaskInputSchema()).optional(),
}));
export interface SliceData {
  readonly workflow: string;
  readonly runId: string;
  readonly tasks?: readonly TaskInput[];
}

/** Retry, heartbeat and expiry of a workflow's slices: the workers' settings (pg-boss keeps them per queue). */
export interface QueuePolicy {
  readonly retryLimit: number;
  readonly retryDelaySeconds: number;
  readonly heartbeatSeconds: number;
}

/** Defaults for a queue a submitter creates before any worker did (a worker's start updates them). */
export const DEFAULT_QUEUE_POLICY: QueuePolicy = { retryLimit: 3, retryDelaySeconds: 1, heartbeatSeconds: 10 };

function queueOptions(policy: QueuePolicy): Omit<Queue, 'name'> {
  return {
    policy: 'stately',
    deadLetter: DEAD_LETTER_QUEUE,
    notify: true,
    retryLimit: policy.retryLimit,
    retryDelay: policy.retryDelaySeconds,
    retryBackoff: true,
    retryDelayMax: 60,
    heartbeatSeconds: policy.heartbeatSeconds,
    // A slice runs as long as its run does: the heartbeat, not the expiry, notices a dead worker.
    expireInSeconds: 24 * 60 * 60 - 60,
  };
}

/** Opens pg-boss on the placement's schema (created and migrated on first use). */
export async function openBoss(place: QueuePlacement, options: { readonly supervise: boolean; readonly heartbeatSeconds?: number }): Promise<PgBoss> {
  const { PgBoss } = await import('pg-boss');
  // The monitor fails slices whose heartbeat stopped: it runs a few times per heartbeat interval.
  const monitorSeconds = Math.max(1, Math.floor((options.heartbeatSeconds ?? DEFAULT_QUEUE_POLICY.heartbeatSeconds) / 5));
  const boss = new PgBoss({
    connectionString: place.connectionString,
    schema: place.queueSchema,
    supervise: options.supervise,
    schedule: false,
    useListenNotify: options.supervise,
    monitorIntervalSeconds: monitorSeconds,
    superviseIntervalSeconds: monitorSeconds,
    max: options.supervise ? 10 : 2,
  });
  // pg-boss reports background failures (a lost connection, a failed poll) as `error` events;
  // without a listener Node would throw them. They are retried by pg-boss itself.
  boss.on('error', () => undefined);
  await boss.start();
  return boss;
}

/** Creates the dead-letter queue and the workflow's queue when missing; `update` sets a worker's policy on an existing one. */
export async function ensureQueue(boss: PgBoss, workflow: string, policy: QueuePolicy, update: boolean): Promise<void> {
  if ((await boss.getQueue(DEAD_LETTER_QUEUE)) === null) await createIfMissing(boss, DEAD_LETTER_QUEUE, { retryLimit: 5, retryDelay: 1, retryBackoff: true });
  const name = queueOf(workflow);
  const options = queueOptions(policy);
  if ((await boss.getQueue(name)) === null) await createIfMissing(boss, name, options);
  else if (update) {
    const { policy: _policy, deadLetter: _deadLetter, retryDelayMax: _max, heartbeatSeconds, ...rest } = options;
    await boss.updateQueue(name, { ...rest, heartbeatSeconds: heartbeatSeconds ?? null });
  }
}

async function createIfMissing(boss: PgBoss, name: string, options: Omit<Queue, 'name'>): Promise<void> {
  try {
    await boss.createQueue(name, options);
  } catch (error) {
    // Another process created it meanwhile.
    if ((await boss.getQueue(name)) === null) throw error;
  }
}

/**
 * Queues a slice of the run. Resolves false when one was already waiting (the queue keeps one
 * queued slice per run): the run will run anyway, once.
 */
export async function sendSlice(boss: PgBoss, data: SliceData, options: { readonly priority?: number; readonly startAfterSeconds?: number } = {}): Promise<boolean> {
  const id = await boss.send(queueOf(data.workflow), { ...data }, {
    singletonKey: data.runId,
    ...(options.priority === undefined ? {} : { priority: options.priority }),
    ...(options.startAfterSeconds === undefined || options.startAfterSeconds <= 0 ? {} : { startAfter: options.startAfterSeconds }),
  });
  return id !== null;
}
