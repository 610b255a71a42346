/**
 * What the processes of the workers demo share: the workflow's name and tasks, where runs and
 * queues live (from the environment the demo gives each process), and the one-line JSON reports
 * a worker process prints for the demo to follow.
 */
import type { SliceReport } from '../../src/index.js';

export const DEMO_WORKFLOW = 'expense-check';
export const DEMO_TASKS = ['check the hotel invoice', 'check the train ticket', 'check the dinner receipt'] as const;
/** Each model call takes this long, as a remote model would: a run takes a few seconds, so a kill lands mid-run. */
export const MODEL_DELAY_MS = 400;
export const DEMO_RUNS = 6;

export interface DemoPlace {
  readonly connectionString: string;
  readonly schema: string;
  readonly queueSchema: string;
}

/** The place the demo's main process passes to its children in `DEMO_DATABASE_URL`. */
export function demoPlace(environment: NodeJS.ProcessEnv = process.env): DemoPlace {
  const connectionString = environment.DEMO_DATABASE_URL;
  if (connectionString === undefined || connectionString === '') throw new Error('DEMO_DATABASE_URL is not set: start the demo with `npm run demo:workers`');
  return { connectionString, schema: 'demo', queueSchema: 'demo_queue' };
}

/** What a worker or the submitter process reports, one JSON object a line on stdout. */
export type DemoReport =
  | { readonly event: 'ready'; readonly workerId: string; readonly pid: number }
  | { readonly event: 'slice_start'; readonly workerId: string; readonly runId: string }
  | { readonly event: 'tool'; readonly workerId: string; readonly runId: string; readonly toolCallId: string }
  | ({ readonly event: 'slice_end' } & SliceReport)
  | { readonly event: 'submitted'; readonly runId: string };

export function printReport(report: DemoReport): void {
  process.stdout.write(`${JSON.stringify(report)}\n`);
}
