import { describeError } from '../../errors.js';
import type { KernelOptions } from '../../kernel/options.js';
import type { SliceReport, WorkflowBuilder } from '../../workers/worker-settings.js';
import { complain, type CommandIO } from '../command-io.js';
import { EXIT } from '../exit-codes.js';
import { prepareManifest } from '../prepare-manifest.js';
import { queueTarget, workflowOf } from '../queue-target.js';
import { reportIssues } from '../report-issues.js';
import { addManifestMcp } from '../manifest-mcp.js';

export interface WorkerFlags {
  readonly store?: string;
  readonly concurrency?: number;
  readonly workerId?: string;
  readonly json?: boolean;
}

/**
 * `dualloop worker <manifest…> --store postgres://…`: runs slices of the runs submitted for these
 * manifests' workflows (each named by its file name) until SIGTERM or Ctrl-C, which drains: no
 * new slice is taken, running runs go back to the queue at their next turn boundary, and the
 * process exits 0. One line per slice on stdout (JSON with `--json`).
 */
export async function workerCommand(manifestPaths: readonly string[], flags: WorkerFlags, io: CommandIO): Promise<number> {
  const target = queueTarget(flags.store, 'worker');
  if ('problem' in target) {
    complain(io, target.problem);
    return EXIT.usage;
  }
  const workflows: Record<string, WorkflowBuilder> = {};
  for (const path of manifestPaths) {
    const workflow = workflowOf(path);
    if (workflows[workflow] !== undefined) {
      complain(io, `two manifests are named ${workflow}: a workflow is named by its manifest's file name`);
      return EXIT.usage;
    }
    const prepared = await prepareManifest(path, {}, io.cwd);
    if (!prepared.ok) {
      reportIssues(io.stderr, prepared.issues);
      return EXIT.usage;
    }
    const mcp = addManifestMcp(prepared.value.loaded, prepared.value.options);
    if ('error' in mcp) {
      complain(io, mcp.error);
      return EXIT.error;
    }
    const options: KernelOptions = mcp.options;
    workflows[workflow] = () => options;
  }
  const { createWorker } = await import('../../workers/create-worker.js');
  let worker;
  try {
    worker = createWorker({
      ...target,
      workflows,
      ...(flags.concurrency === undefined ? {} : { concurrency: flags.concurrency }),
      ...(flags.workerId === undefined ? {} : { workerId: flags.workerId }),
      onSlice: (slice) => io.stdout.write(`${flags.json === true ? JSON.stringify({ type: 'slice', ...slice }) : sliceLine(slice)}\n`),
    });
  } catch (error) {
    complain(io, describeError(error));
    return EXIT.usage;
  }
  const stopped = new Promise<void>((resolve) => {
    process.once('SIGTERM', () => resolve());
    process.once('SIGINT', () => resolve());
  });
  try {
    await worker.start();
  } catch (error) {
    complain(io, `the worker could not start: ${describeError(error)}`);
    await worker.stop({ drain: false });
    return EXIT.error;
  }
  io.stderr.write(`worker ${worker.workerId} takes runs of ${Object.keys(workflows).join(', ')}; SIGTERM or Ctrl-C drains and exits\n`);
  await stopped;
  io.stderr.write('draining: running runs go back to the queue at their next turn boundary\n');
  await worker.stop({ drain: true });
  return EXIT.completed;
}

function sliceLine(slice: SliceReport): string {
  const stop = slice.stop === undefined ? '' : `: ${slice.stop.reason}${slice.stop.reason === 'error' ? ` (${slice.stop.detail})` : ''}`;
  return `${new Date().toISOString()} run ${slice.runId} (${slice.workflow}) ${slice.outcome}${stop}`;
}
