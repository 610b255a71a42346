import { ConfigError } from '../../errors.js';
import { formatForkPoint } from '../../contracts/fork.js';
import type { WorkflowRun } from '../../kernel/workflow-run.js';
import { startViewer, type Viewer, type ViewerControl } from '../../viewer/index.js';
import { forkStoredRun } from '../fork-run.js';
import { approveRun } from '../../control/run-control.js';
import { editedArgs } from '../../policy/approval-answer.js';
import { manifestTools } from '../approval-flags.js';
import { complain, type CommandIO } from '../command-io.js';
import { EXIT } from '../exit-codes.js';
import { openCommandStore, type CommandStore } from '../store-target.js';
import { createAccessToken, isLoopback } from '../../viewer/access-control.js';
import { describeListenError, launchBounds, nonLoopbackWarning, untilInterrupted } from '../run-watchers.js';

export interface ViewFlags {
  readonly store?: string;
  readonly host?: string;
  readonly port?: number;
  /** Enables "fork from here": forks run in this process, rebuilt from the store's launch records. */
  readonly control?: boolean;
}

/**
 * `dualloop view [runId]`: serves the local viewer (docs/viewer.md) on a store's runs until
 * Ctrl-C: a finished run to replay, or a run another process is writing, followed live.
 */
export async function viewCommand(runId: string | undefined, flags: ViewFlags, io: CommandIO): Promise<number> {
  const opened = await openCommandStore({ flag: flags.store, create: false }, io);
  if (opened === undefined) return EXIT.usage;
  let viewer: Viewer | undefined;
  const forks = new Set<WorkflowRun>();
  try {
    if (runId !== undefined && (await opened.store.getRun(runId)) === undefined) {
      complain(io, `no run ${runId} in ${opened.where}`);
      return EXIT.usage;
    }
    const beyondLoopback = flags.host !== undefined && !isLoopback(flags.host);
    try {
      viewer = await startViewer({
        store: opened.store,
        ...(flags.host === undefined ? {} : { host: flags.host }),
        ...(beyondLoopback ? { token: createAccessToken() } : {}),
        ...(flags.port === undefined ? {} : { port: flags.port }),
        ...(runId === undefined ? {} : { runId }),
        bounds: async (id) => launchBounds(await opened.launches.load(id).catch(() => undefined)),
        ...(flags.control === true ? { control: viewerControl(opened, io, forks) } : {}),
      });
    } catch (error) {
      complain(io, describeListenError(error, flags));
      return EXIT.error;
    }
    if (beyondLoopback) complain(io, nonLoopbackWarning(flags.host!));
    io.stdout.write(`viewer: ${viewer.url}\n`);
    io.stderr.write(`serving until Ctrl-C${flags.control === true ? ' (control enabled: the page can fork runs and answer approvals)' : ''}\n`);
    await untilInterrupted();
    return EXIT.completed;
  } finally {
    await viewer?.close();
    // Forks still running stop `context_canceled` (resumable) before the store closes.
    for (const run of forks) run.abort('the viewer stopped');
    await Promise.all([...forks].map((run) => run.result));
    await opened.close();
  }
}

/**
 * The viewer's control: a fork runs in this process, its events reach the page through the store;
 * an approval is stored for the run's next resume, edited arguments checked as `dualloop approve` checks them.
 */
function viewerControl(opened: CommandStore, io: CommandIO, forks: Set<WorkflowRun>): ViewerControl {
  return {
    async approve(runId, { approvalId, answer }) {
      const checked = editedArgs(answer) === undefined ? {} : await manifestTools(opened, runId, undefined, io.cwd);
      if ('problem' in checked) throw new ConfigError({ message: `the arguments for run ${runId} cannot be checked`, issues: [{ path: 'manifest', message: checked.problem }] });
      const answered = await approveRun(opened.store, runId, { callId: approvalId, answer, ...(checked.tools === undefined ? {} : { tools: checked.tools }) });
      io.stderr.write(`approval ${answered} of run ${runId} answered from the viewer; it applies when the run is resumed\n`);
      return answered;
    },
    async fork(sourceRunId, at) {
      const outcome = await forkStoredRun(opened, { sourceRunId, at }, io.cwd);
      if (!outcome.ok) {
        const issues = outcome.issues?.map((issue) => ({ path: issue.file, message: issue.message })) ?? [{ path: 'manifest', message: outcome.message ?? 'no manifest to fork with' }];
        throw new ConfigError({ message: `run ${sourceRunId} cannot be forked here`, issues });
      }
      const { run } = outcome;
      forks.add(run);
      io.stderr.write(`forked ${sourceRunId} at ${formatForkPoint(at)} as ${run.runId}\n`);
      void run.result.then((result) => {
        forks.delete(run);
        io.stderr.write(`${run.runId} ended ${result.stop.reason}\n`);
      });
      return run.runId;
    },
  };
}
