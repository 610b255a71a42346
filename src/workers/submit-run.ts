import { randomUUID } from 'node:crypto';
import { RunError } from '../errors.js';
import { createRedactor } from '../redaction/secret-values.js';
import { DEFAULT_QUEUE_POLICY, ensureQueue, openBoss, sendSlice } from './run-queue.js';
import { openSubmissions, type Submission } from './submissions.js';
import { resolveSubmitOptions, type SubmitRunOptions } from './worker-settings.js';

export interface SubmittedRun {
  readonly runId: string;
  /** False when a slice of this run was already waiting in the queue (a duplicate submission): it still runs once. */
  readonly queued: boolean;
}

/**
 * Puts a run on its workflow's queue (DESIGN.md §10, ADR/0200): some worker that knows the
 * workflow runs it, slice by slice, exactly once. A new run's workflow, tasks and priority are
 * recorded in the store first (ADR/0204), so that a later slice can be queued from the store alone.
 * Without `tasks`, queues the next slice of an existing run (a parked run after its approval; at
 * its recorded priority unless one is given; RunError `run_not_found` when there is none); a
 * finished run is not run again. The tasks are stored and queued redacted: key-shaped tokens and the
 * `redact` values become `[redacted]`, and the worker runs them so (ADR/0305). Throws ConfigError on
 * invalid options, before touching the database, and RunError `run_exists` for a run id first
 * submitted to another workflow.
 */
export async function submitRun(options: SubmitRunOptions): Promise<SubmittedRun> {
  const parsed = resolveSubmitOptions(options);
  // The tasks stay in the submissions table and the job: what a store keeps is redacted (ADR/0305).
  const settings = parsed.tasks === undefined ? parsed : { ...parsed, tasks: createRedactor({ redact: parsed.redact ?? [], models: [] }).value(parsed.tasks) };
  const runId = settings.runId ?? `run-${randomUUID()}`;
  let priority = settings.priority;
  const submissions = await openSubmissions(settings);
  try {
    // A run belongs to the workflow it was first submitted to: another one would run it with other code.
    const refuseOtherWorkflow = (recorded: Submission | undefined) => {
      if (recorded !== undefined && recorded.workflow !== settings.workflow) {
        throw new RunError({ code: 'run_exists', runId, message: `run ${runId} was submitted to workflow ${recorded.workflow}; it cannot be queued for workflow ${settings.workflow}` });
      }
    };
    const recorded = await submissions.find(runId);
    refuseOtherWorkflow(recorded);
    if (settings.tasks === undefined) {
      if ((await submissions.store.getRun(runId)) === undefined) {
        throw new RunError({ code: 'run_not_found', runId, message: `run ${runId} does not exist in postgres schema ${settings.schema}: a new run needs its tasks` });
      }
      priority ??= recorded?.priority;
    } else if (recorded === undefined) {
      await submissions.record(runId, { workflow: settings.workflow, tasks: settings.tasks, ...(priority === undefined ? {} : { priority }) });
      // Another submitter may have recorded it first, on another workflow.
      refuseOtherWorkflow(await submissions.find(runId));
    }
  } finally {
    await submissions.close();
  }
  const boss = await openBoss(settings, { supervise: false });
  try {
    await ensureQueue(boss, settings.workflow, DEFAULT_QUEUE_POLICY, false);
    const queued = await sendSlice(
      boss,
      { workflow: settings.workflow, runId, ...(settings.tasks === undefined ? {} : { tasks: settings.tasks }) },
      priority === undefined ? {} : { priority },
    );
    return { runId, queued };
  } finally {
    await boss.stop({ graceful: false });
  }
}
