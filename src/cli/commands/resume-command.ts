import type { RunErrorCode } from '../../contracts/error-codes.js';
import type { ApprovalAnswer } from '../../contracts/policy.js';
import { isNaturalCompletion } from '../../contracts/stop.js';
import { describeError, isDualloopErrorOf } from '../../errors.js';
import { createManifestKernel } from '../../manifest/manifest-kernel.js';
import { complain, type CommandIO } from '../command-io.js';
import { EXIT } from '../exit-codes.js';
import { followRun } from '../follow-run.js';
import { launchManifest } from '../launch-manifest.js';
import { openCommandStore } from '../store-target.js';
import { prepareManifest } from '../prepare-manifest.js';
import { addManifestMcp } from '../manifest-mcp.js';
import { reportIssues } from '../report-issues.js';
import { trapInterrupts } from '../watch-run.js';

export interface ResumeFlags {
  readonly store?: string;
  readonly json?: boolean;
  /** The manifest to rebuild the run's kernel from, when the store does not know it (or it moved). */
  readonly manifest?: string;
  readonly approve?: readonly string[];
  readonly reject?: readonly string[];
  /** Go on although the workflow changed since the run started. */
  readonly acceptWorkflowChange?: boolean;
}

/** Errors that mean "this run id cannot be resumed here" rather than "something broke". */
const USAGE_CODES: ReadonlySet<string> = new Set<RunErrorCode>(['run_not_found', 'run_finished', 'workflow_changed']);

/**
 * `dualloop resume <runId>`: rebuilds the kernel from the manifest and bound overrides the run
 * was started with, then continues it from its last checkpoint, answering parked approvals.
 */
export async function resumeCommand(runId: string, flags: ResumeFlags, io: CommandIO): Promise<number> {
  const approvals = approvalAnswers(flags);
  if (typeof approvals === 'string') {
    complain(io, approvals);
    return EXIT.usage;
  }
  const opened = await openCommandStore({ flag: flags.store, create: false }, io);
  if (opened === undefined) return EXIT.usage;
  const trap = trapInterrupts();
  try {
    const launch = await launchManifest(opened, runId, flags.manifest);
    if ('problem' in launch) {
      complain(io, launch.problem);
      return EXIT.usage;
    }
    const prepared = await prepareManifest(launch.path, launch.overrides, io.cwd);
    if (!prepared.ok) {
      reportIssues(io.stderr, prepared.issues);
      return EXIT.usage;
    }
    const { loaded } = prepared.value;
    const mcp = addManifestMcp(loaded, prepared.value.options);
    if ('error' in mcp) {
      complain(io, mcp.error);
      return EXIT.error;
    }
    const { options } = mcp;
    const kernel = createManifestKernel(loaded, options, opened.store);
    if (!kernel.ok) {
      reportIssues(io.stderr, kernel.issues);
      return EXIT.usage;
    }
    const audit = await opened.store.audit(runId);
    if (trap.interrupted !== undefined) return EXIT.canceled;
    let run;
    try {
      run = await kernel.value.resume(runId, { approvals, ...(flags.acceptWorkflowChange === true ? { acceptChange: true } : {}) });
    } catch (error) {
      complain(io, `cannot resume ${runId}: ${describeError(error)}`);
      return isDualloopErrorOf(error, 'run') && USAGE_CODES.has(error.code) ? EXIT.usage : EXIT.error;
    }
    const before = audit === undefined ? undefined : { metrics: audit.workflow.metrics, tasksDone: audit.tasks.filter((task) => isNaturalCompletion(task.stop.reason)).length };
    return await followRun({ run, opened, options, name: loaded.manifest.name, json: flags.json === true, io, trap, ...(before === undefined ? {} : { before }) });
  } finally {
    trap.release();
    await opened.close();
  }
}

function approvalAnswers(flags: ResumeFlags): Record<string, ApprovalAnswer> | string {
  const answers: Record<string, ApprovalAnswer> = {};
  for (const id of flags.approve ?? []) answers[id] = 'approve';
  for (const id of flags.reject ?? []) {
    if (answers[id] === 'approve') return `--approve and --reject both name ${id}`;
    answers[id] = 'reject';
  }
  return answers;
}
