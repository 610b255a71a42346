import { hostname } from 'node:os';
import type { PgBoss } from 'pg-boss';
import type { PostgresStore } from '../checkpoint/postgres/postgres-store.js';
import { WorkerError } from '../errors.js';
import { createHolderId } from '../kernel/run-lease.js';
import { endDeadLetteredRun, type DeadSlice } from './dead-letter.js';
import { DEAD_LETTER_QUEUE, ensureQueue, openBoss, queueOf } from './run-queue.js';
import { runSlice, type SliceContext, type SliceHandle, type SliceJob } from './run-slice.js';
import { resolveWorkerOptions, type SliceReport, type WorkerOptions } from './worker-settings.js';

export interface StopOptions {
  /**
   * true (default): take no new slices and hand each running run back at its next turn boundary,
   * waiting at most `drainTimeoutMs` for it before handing it back as soon as no tool call is in
   * flight. false: hand every run back as soon as no tool call is in flight. Either way a run is
   * checkpointed, its lease released and its next slice queued for any worker.
   */
  readonly drain?: boolean;
}

export interface Worker {
  readonly workerId: string;
  /** Connects, creates or updates the workflows' queues and starts taking slices. */
  start(): Promise<void>;
  /** Stops taking slices, hands the running ones back (see `StopOptions`) and disconnects. */
  stop(options?: StopOptions): Promise<void>;
}

/**
 * A worker process's share of the runs (DESIGN.md §10, ADR/0200): takes slices of runs from the
 * queues of the workflows it knows and runs each on a kernel built by that workflow's function,
 * on the shared Postgres store. Validates its options at once (ConfigError naming every bad
 * field); connects only in `start()`. Installs no signal handler: `dualloop worker` stops it on
 * SIGTERM, and a program embedding it does the same with `process.once('SIGTERM', …)`.
 */
export function createWorker(options: WorkerOptions): Worker {
  const settings = resolveWorkerOptions(options, `${hostname()}/pid-${process.pid}`);
  const running = new Set<SliceHandle>();
  const inFlight = new Set<Promise<unknown>>();
  let stopping: { readonly atTurnBoundary: boolean } | undefined;
  let opened: { readonly boss: PgBoss; readonly store: PostgresStore } | undefined;
  let starting: Promise<void> | undefined;
  let stopped: Promise<void> | undefined;

  const report = (slice: SliceReport) => {
    try {
      settings.onSlice?.(slice);
    } catch {
      // A reporting hook does not decide a slice's fate.
    }
  };

  const track = (handle: SliceHandle) => {
    running.add(handle);
    // A slice that began while the worker was already stopping goes back at once.
    if (stopping !== undefined) handle.suspend(stopping.atTurnBoundary);
    return () => void running.delete(handle);
  };

  /** Every handler is counted, so that `stop()` waits for the slices it hands back. */
  const counted = <T>(work: Promise<T>): Promise<T> => {
    inFlight.add(work);
    void work.finally(() => inFlight.delete(work)).catch(() => undefined);
    return work;
  };

  const open = async () => {
    const { postgresStore } = await import('../checkpoint/postgres/postgres-store.js');
    const store = postgresStore({ connectionString: settings.connectionString }, { schema: settings.schema });
    await store.ready();
    const boss = await openBoss(settings, { supervise: true, heartbeatSeconds: settings.heartbeatSeconds });
    opened = { boss, store };
    const context: SliceContext = { settings, store, boss, track };
    const policy = { retryLimit: settings.retryLimit, retryDelaySeconds: settings.retryDelaySeconds, heartbeatSeconds: settings.heartbeatSeconds };
    for (const workflow of Object.keys(settings.workflows)) {
      await ensureQueue(boss, workflow, policy, true);
      await boss.work<unknown>(queueOf(workflow), { localConcurrency: settings.concurrency, includeMetadata: true, pollingIntervalSeconds: 1, notifyPollingIntervalSeconds: 1 }, (jobs) =>
        counted(
          (async () => {
            const slice = await runSlice(context, jobs[0] as SliceJob);
            report(slice);
            return slice;
          })(),
        ),
      );
    }
    const holder = createHolderId();
    await boss.work<unknown>(DEAD_LETTER_QUEUE, { includeMetadata: true, pollingIntervalSeconds: 2, notifyPollingIntervalSeconds: 2 }, (jobs) =>
      counted(endDeadLetteredRun(store, jobs[0] as DeadSlice, holder, settings.leaseMs)),
    );
  };

  const close = async (atTurnBoundary: boolean) => {
    stopping = { atTurnBoundary };
    if (starting !== undefined) await starting.catch(() => undefined);
    if (opened === undefined) return;
    const { boss, store } = opened;
    for (const workflow of Object.keys(settings.workflows)) await boss.offWork(queueOf(workflow), { wait: false });
    await boss.offWork(DEAD_LETTER_QUEUE, { wait: false });
    for (const handle of running) handle.suspend(atTurnBoundary);
    // Past the drain timeout a run is handed back without waiting for its turn boundary.
    const loosen = atTurnBoundary
      ? setTimeout(() => {
          stopping = { atTurnBoundary: false };
          for (const handle of running) handle.suspend(false);
        }, settings.drainTimeoutMs)
      : undefined;
    // A slice stuck in a tool call that never ends is not waited for forever: pg-boss fails it at
    // its stop, and the run goes to another worker once this process has exited.
    let giveUp: ReturnType<typeof setTimeout> | undefined;
    const bound = new Promise<void>((resolve) => (giveUp = setTimeout(resolve, 2 * settings.drainTimeoutMs + 5_000)));
    const settled = (async () => {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    })();
    try {
      await Promise.race([settled, bound]);
    } finally {
      clearTimeout(loosen);
      clearTimeout(giveUp);
    }
    await boss.stop({ graceful: inFlight.size === 0, timeout: 5_000 });
    await store.close();
  };

  return {
    workerId: settings.workerId,
    start() {
      if (stopping !== undefined) return Promise.reject(new WorkerError({ code: 'worker_stopped', workerId: settings.workerId, message: `worker ${settings.workerId} was stopped; create another one` }));
      starting ??= open();
      return starting;
    },
    stop(stopOptions = {}) {
      stopped ??= close(stopOptions.drain !== false);
      return stopped;
    },
  };
}
