/**
 * One worker process of the workers demo (examples/workers-demo/main.ts starts three):
 *
 *   DEMO_DATABASE_URL=postgres://… node dist/examples/workers-demo/worker-process.js <workerId>
 *
 * Takes slices of runs of the workflow `expense-check` — per task, the scripted model asks for
 * `record_check`, then answers — and reports on stdout what the demo prints: `ready`, each slice
 * it starts, each tool call it executes, each slice that ends. Drains on SIGTERM and exits 0.
 */
import { z } from 'zod';
import { createWorker, defineTool, type WorkflowBuilder } from '../../src/index.js';
import { scriptedModel } from '../../src/testing/index.js';
import { DEMO_TASKS, DEMO_WORKFLOW, demoPlace, MODEL_DELAY_MS, printReport } from './demo-workflow.js';

const workerId = process.argv[2] ?? `worker-${process.pid}`;

const expenseCheck: WorkflowBuilder = ({ runId }) => {
  // Called once per slice: a run that a dead worker left is resumed here from its last checkpoint.
  printReport({ event: 'slice_start', workerId, runId });
  const recordCheck = defineTool({
    name: 'record_check',
    description: 'Records that an expense was checked.',
    parameters: z.object({ item: z.string() }),
    execute: ({ item }, context) => {
      printReport({ event: 'tool', workerId, runId, toolCallId: context.toolCallId });
      return `checked: ${item}`;
    },
  });
  const model = scriptedModel(({ index }) => {
    const task = Math.floor(index / 2);
    const item = DEMO_TASKS[task] ?? 'nothing';
    return index % 2 === 0
      ? { toolCalls: [{ name: 'record_check', args: { item }, id: `check-${task + 1}` }], delayMs: MODEL_DELAY_MS }
      : { text: `ok: ${item}`, delayMs: MODEL_DELAY_MS };
  });
  return { model, tools: [recordCheck], loopDetection: false };
};

const worker = createWorker({
  ...demoPlace(),
  workflows: { [DEMO_WORKFLOW]: expenseCheck },
  workerId,
  concurrency: 1,
  onSlice: (slice) => printReport({ event: 'slice_end', ...slice }),
});

process.once('SIGTERM', () => {
  void worker.stop({ drain: true }).then(
    () => process.exit(0),
    (error: unknown) => {
      process.stderr.write(`${workerId}: stop failed: ${String(error)}\n`);
      process.exit(1);
    },
  );
});
await worker.start();
printReport({ event: 'ready', workerId, pid: process.pid });
