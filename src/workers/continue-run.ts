import { DEFAULT_QUEUE_POLICY, ensureQueue, openBoss, sendSlice } from './run-queue.js';
import { openSubmissions } from './submissions.js';
import type { QueuePlacement } from './worker-settings.js';

/**
 * Queues the next slice of a run that was submitted to workers (a parked run after `dualloop
 * approve`), on its workflow's queue at its priority, both read from the run's submission in the
 * store (ADR/0204): pg-boss's jobs of the run may be long gone. Resolves that workflow, or
 * undefined when the run was never submitted: then nothing is queued, and pg-boss is not
 * installed in a database that does not use it.
 */
export async function queueNextSlice(place: QueuePlacement, runId: string): Promise<string | undefined> {
  const submissions = await openSubmissions(place);
  let submission;
  try {
    submission = await submissions.find(runId);
  } finally {
    await submissions.close();
  }
  if (submission === undefined) return undefined;
  const boss = await openBoss(place, { supervise: false });
  try {
    await ensureQueue(boss, submission.workflow, DEFAULT_QUEUE_POLICY, false);
    await sendSlice(boss, { workflow: submission.workflow, runId }, submission.priority === undefined ? {} : { priority: submission.priority });
    return submission.workflow;
  } finally {
    await boss.stop({ graceful: false });
  }
}
