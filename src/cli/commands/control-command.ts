import { approveRun, cancelRun, steerRun } from '../../control/run-control.js';
import type { ApprovalAnswer } from '../../contracts/policy.js';
import { isDualloopErrorOf } from '../../errors.js';
import { answerFromFlags, manifestTools, type ApprovalFlags } from '../approval-flags.js';
import { complain, type CommandIO } from '../command-io.js';
import { EXIT } from '../exit-codes.js';
import { queueTarget } from '../queue-target.js';
import { openCommandStore, type CommandStore } from '../store-target.js';

export interface ControlFlags {
  readonly store?: string;
  /** `approve --args`: the manifest whose tools check the arguments, when the store does not know the run's. */
  readonly manifest?: string;
}

export type ControlRequest =
  | { readonly kind: 'cancel'; readonly reason?: string }
  | { readonly kind: 'steer'; readonly message: string; readonly taskId?: string }
  | ({ readonly kind: 'approve'; readonly callId?: string; readonly reason?: string } & ApprovalFlags);

/**
 * `dualloop cancel|steer|approve <runId> …`: sends the command through the store to the process
 * running the run (or, for an approval, to its next resume) and says what was sent. A command the
 * run cannot take (unknown, finished, no such pending approval, answered already) exits 64 naming why.
 */
export async function controlCommand(runId: string, request: ControlRequest, flags: ControlFlags, io: CommandIO): Promise<number> {
  const opened = await openCommandStore({ flag: flags.store, create: false }, io);
  if (opened === undefined) return EXIT.usage;
  try {
    if (request.kind === 'cancel') {
      await cancelRun(opened.store, runId, request.reason === undefined ? {} : { reason: request.reason });
      io.stdout.write(`cancel sent to run ${runId}\n`);
    } else if (request.kind === 'steer') {
      await steerRun(opened.store, runId, request.message, request.taskId === undefined ? {} : { taskId: request.taskId });
      io.stdout.write(`steering message queued for ${request.taskId === undefined ? '' : `task ${request.taskId} of `}run ${runId}\n`);
    } else {
      return await sendApproval(opened, runId, request, flags, io);
    }
    return EXIT.completed;
  } catch (error) {
    if (isDualloopErrorOf(error, 'config')) {
      complain(io, error.message);
      return EXIT.usage;
    }
    if (!isDualloopErrorOf(error, 'run')) throw error;
    complain(io, `${error.message} [${error.code}]`);
    return EXIT.usage;
  } finally {
    await opened.close();
  }
}

/** `approve`: the answer from the flags, `--args` checked against the run's manifest when one names it, then stored. */
async function sendApproval(opened: CommandStore, runId: string, request: Extract<ControlRequest, { kind: 'approve' }>, flags: ControlFlags, io: CommandIO): Promise<number> {
  const given = answerFromFlags(request);
  if ('problem' in given) return refuse(io, given.problem);
  const checked = request.args === undefined ? {} : await manifestTools(opened, runId, flags.manifest, io.cwd);
  if ('problem' in checked) return refuse(io, checked.problem);
  const { answer } = given;
  const approvalId = await approveRun(opened.store, runId, {
    answer,
    ...(checked.tools === undefined ? {} : { tools: checked.tools }),
    ...(request.callId === undefined ? {} : { callId: request.callId }),
    ...(request.reason === undefined ? {} : { reason: request.reason }),
  });
  const workflow = await continueOnAWorker(flags.store, runId);
  const next = workflow === undefined ? `it applies when the run is resumed (${io.command} resume ${runId}${opened.hint})` : `a worker of ${workflow} continues the run`;
  const unchecked = request.args !== undefined && checked.tools === undefined ? ' (no manifest names the run: the resume checks them against the tool)' : '';
  io.stdout.write(`approval ${approvalId} of run ${runId}: ${answerText(answer)}${unchecked}; ${next}\n`);
  return EXIT.completed;
}

function refuse(io: CommandIO, problem: string): number {
  complain(io, problem);
  return EXIT.usage;
}

function answerText(answer: ApprovalAnswer): string {
  if (answer === 'approve' || answer === 'reject') return answer === 'approve' ? 'allowed' : 'denied';
  if (answer.decision === 'approve') return `allowed with the arguments ${JSON.stringify(answer.args)}`;
  return `denied; the model is told: ${JSON.stringify(answer.message)}`;
}

/** A run submitted to workers (issue 19) gets its next slice queued once approved; resolves its workflow. */
async function continueOnAWorker(store: string | undefined, runId: string): Promise<string | undefined> {
  const target = queueTarget(store, 'approve');
  if ('problem' in target) return undefined;
  const { queueNextSlice } = await import('../../workers/continue-run.js');
  return queueNextSlice({ connectionString: target.connectionString, schema: target.schema ?? 'dualloop', queueSchema: target.queueSchema ?? 'pgboss' }, runId);
}
