import { DEAD_LETTER_QUEUE, openBoss, sendSlice } from './run-queue.js';
import type { QueuePlacement } from './worker-settings.js';

const PREFIX = 'dualloop.';

/**
 * Queues the next slice of a run that was submitted through the queue, on the queue of the
 * workflow its earlier slices ran under (a parked run after `dualloop approve`). Resolves that
 * workflow, or undefined when the run was never submitted (no queue schema, no slice of it): then
 * nothing is changed, and pg-boss is not installed in a database that does not use it.
 */
export async function queueNextSlice(place: Pick<QueuePlacement, 'connectionString' | 'queueSchema'>, runId: string): Promise<string | undefined> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: place.connectionString });
  await client.connect();
  try {
    const installed = await client.query('SELECT 1 FROM information_schema.tables WHERE table_schema = $1 AND table_name = $2', [place.queueSchema, 'queue']);
    if (installed.rowCount === 0) return undefined;
  } finally {
    await client.end();
  }
  const boss = await openBoss({ ...place, schema: 'unused' }, { supervise: false });
  try {
    const queues = (await boss.getQueues()).map((queue) => queue.name).filter((name) => name.startsWith(PREFIX) && name !== DEAD_LETTER_QUEUE);
    for (const queue of queues) {
      if ((await boss.findJobs(queue, { key: runId, limit: 1 })).length === 0) continue;
      const workflow = queue.slice(PREFIX.length);
      await sendSlice(boss, { workflow, runId });
      return workflow;
    }
    return undefined;
  } finally {
    await boss.stop({ graceful: false });
  }
}
