/**
 * The submitter process of the workers demo: puts DEMO_RUNS runs of `expense-check` on the queue
 * and exits. Code never travels through the queue: only the workflow's name, the run id and the
 * tasks; the workers build the kernel for it.
 *
 *   DEMO_DATABASE_URL=postgres://… node dist/examples/workers-demo/submitter.js
 */
import { submitRun } from '../../src/index.js';
import { DEMO_RUNS, DEMO_TASKS, DEMO_WORKFLOW, demoPlace, printReport } from './demo-workflow.js';

for (let index = 1; index <= DEMO_RUNS; index += 1) {
  const { runId } = await submitRun({ ...demoPlace(), workflow: DEMO_WORKFLOW, tasks: [...DEMO_TASKS], runId: `expenses-${index}` });
  printReport({ event: 'submitted', runId });
}
