import { describePostgresFailure, describeTarget } from '../../checkpoint/postgres/postgres-failure.js';
import { describeError, isDualloopError } from '../../errors.js';
import { MIN_SECRET_LENGTH } from '../../redaction/secret-values.js';
import { complain, type CommandIO } from '../command-io.js';
import { EXIT } from '../exit-codes.js';
import { followStoredRun } from '../follow-stored-run.js';
import { postgresLaunchRecords } from '../launch-records.js';
import { prepareManifest } from '../prepare-manifest.js';
import { queueTarget, workflowOf, type QueueTarget } from '../queue-target.js';
import { reportIssues } from '../report-issues.js';

export interface SubmitFlags {
  readonly store?: string;
  readonly runId?: string;
  readonly priority?: number;
  readonly wait?: boolean;
  readonly json?: boolean;
}

/**
 * `dualloop submit <manifest> --store postgres://…`: validates the manifest as `run` does and puts
 * a run of it on the queue of its workflow (the manifest's file name), for `dualloop worker`
 * processes to execute. Prints the run id; with `--wait`, follows the run to its end and exits as
 * `run` would (0, 2, 3, 4, 130).
 */
export async function submitCommand(manifestPath: string, flags: SubmitFlags, io: CommandIO): Promise<number> {
  const target = queueTarget(flags.store, 'submit');
  if ('problem' in target) {
    complain(io, target.problem);
    return EXIT.usage;
  }
  const prepared = await prepareManifest(manifestPath, {}, io.cwd);
  if (!prepared.ok) {
    reportIssues(io.stderr, prepared.issues);
    return EXIT.usage;
  }
  const tasks = prepared.value.options.tasks;
  if (tasks === undefined) {
    complain(io, 'submit needs a manifest with `tasks` (a plan strategy from `goal` runs with `dualloop run`)');
    return EXIT.usage;
  }
  const { submitRun } = await import('../../workers/submit-run.js');
  let submitted;
  try {
    // The manifest's secrets and its model's credentials stay out of the stored tasks (ADR/0305).
    const { options } = prepared.value;
    const redact = [...(options.redact ?? []), ...(options.model?.secrets ?? [])].filter((value) => value.length >= MIN_SECRET_LENGTH);
    submitted = await submitRun({ ...target, workflow: workflowOf(manifestPath), tasks, redact, ...(flags.runId === undefined ? {} : { runId: flags.runId }), ...(flags.priority === undefined ? {} : { priority: flags.priority }) });
  } catch (error) {
    if (isDualloopError(error, 'config_invalid')) {
      complain(io, error.issues.map((issue) => `${issue.path === 'workflow' ? `workflow name "${workflowOf(manifestPath)}" (the manifest's file name)` : issue.path}: ${issue.message}`).join('\n'));
      return EXIT.usage;
    }
    complain(io, `cannot submit the run: ${describeError(error)}`);
    return EXIT.error;
  }
  await recordLaunch(target, submitted.runId, prepared.value.loaded.path, io);
  const line = flags.json === true ? JSON.stringify({ type: 'submitted', runId: submitted.runId, workflow: workflowOf(manifestPath), queued: submitted.queued }) : `submitted run ${submitted.runId} (workflow ${workflowOf(manifestPath)})${submitted.queued ? '' : '; a slice of it was already queued'}`;
  (flags.wait === true && flags.json !== true ? io.stderr : io.stdout).write(`${line}\n`);
  if (flags.wait !== true) return EXIT.completed;
  const { postgresStore } = await import('../../checkpoint/postgres/postgres-store.js');
  const store = postgresStore({ connectionString: target.connectionString }, target.schema === undefined ? {} : { schema: target.schema });
  try {
    return await followStoredRun(store, submitted.runId, { json: flags.json === true, io });
  } finally {
    await store.close();
  }
}

/**
 * Records the manifest a submitted run was made from, as `run` does (ADR/0322), so that `dualloop
 * resume`, `fork` and the viewer's fork rebuild its kernel in any process without `--manifest`. A
 * run id submitted before keeps its first record. A failure only warns: the run is queued already.
 */
async function recordLaunch(target: QueueTarget, runId: string, manifestPath: string, io: CommandIO): Promise<void> {
  const launches = postgresLaunchRecords(target.connectionString, target.schema ?? 'dualloop');
  try {
    if ((await launches.load(runId)) === undefined) await launches.save({ runId, manifestPath, overrides: {} });
  } catch (error) {
    const where = `${describeTarget(target.connectionString, {})} schema ${target.schema ?? 'dualloop'}`;
    const failure = describePostgresFailure(error, { where, operation: "recording the run's manifest", runId });
    complain(io, `warning: ${failure.message}; \`dualloop resume\` of this run will need --manifest`);
  } finally {
    await launches.close();
  }
}
