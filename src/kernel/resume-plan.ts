import { RESUMABLE_REASONS } from '../audit/build-audit.js';
import { parseEnvelope } from '../checkpoint/envelope.js';
import type { ApprovalAnswer } from '../contracts/policy.js';
import type { WorkflowProgress } from '../contracts/workflow-protocol.js';
import { RunError } from '../errors.js';
import type { KernelDeps } from './kernel-deps.js';
import type { LaunchPlan } from './launch-run.js';


type ResumePlan = Omit<LaunchPlan, 'progress'> & { readonly progress: WorkflowProgress | undefined };

/**
 * Reads what a resume continues from and refuses, with a RunError naming the run and the
 * problem, anything that would silently restart it: an unknown run, a finished run, a corrupt
 * or future-version checkpoint.
 */
export async function loadResumePlan(
  deps: KernelDeps,
  runId: string,
  digest: string,
  options: { readonly signal?: AbortSignal; readonly approvals?: Readonly<Record<string, ApprovalAnswer>> },
): Promise<ResumePlan> {
  const { store } = deps;
  const record = await store.getRun(runId);
  if (record === undefined) {
    throw new RunError({ code: 'run_not_found', runId, message: `run ${runId} does not exist in the ${store.kind} store` });
  }
  const finished = await store.loadResult(runId);
  if (finished !== undefined && !RESUMABLE_REASONS.has(finished.stop.reason)) {
    throw new RunError({
      code: 'run_finished',
      runId,
      message: `run ${runId} already finished with ${finished.stop.reason} (${finished.stop.detail}); only runs stopped by ${[...RESUMABLE_REASONS].join(', ')} or by a crash can be resumed`,
    });
  }
  const raw = await store.loadCheckpoint(runId);
  let progress: WorkflowProgress | undefined;
  let eventSeq = 0;
  let sequence = 0;
  if (raw !== undefined && raw !== null) {
    const parsed = parseEnvelope(raw, runId);
    if (!parsed.ok) throw new RunError({ code: parsed.problem.code, runId, message: parsed.problem.message });
    progress = parsed.envelope.progress;
    eventSeq = parsed.envelope.eventSeq;
    sequence = parsed.envelope.sequence;
  }
  const later = await store.readEvents(runId, eventSeq);
  const lastEventSeq = later.length === 0 ? eventSeq : later[later.length - 1]!.seq;
  return {
    runId,
    tasks: record.tasks,
    progress,
    resumed: true,
    approvals: new Map(Object.entries(options.approvals ?? {})),
    lastEventSeq,
    checkpointSequence: sequence,
    signal: options.signal,
    warnings:
      record.optionsDigest === digest
        ? []
        : [`run ${runId} was started with different options (digest ${record.optionsDigest.slice(0, 12)}…, now ${digest.slice(0, 12)}…); resuming anyway`],
  };
}
