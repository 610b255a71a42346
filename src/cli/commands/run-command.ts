import { resolve } from 'node:path';
import { describeError, isDualloopError } from '../../errors.js';
import { boundOverridesOf, type BoundOverrides } from '../../manifest/bound-overrides.js';
import { complain, type CommandIO } from '../command-io.js';
import { EXIT } from '../exit-codes.js';
import { followRun } from '../follow-run.js';
import { openCommandStore } from '../store-target.js';
import { prepareManifest } from '../prepare-manifest.js';
import { addManifestMcp } from '../manifest-mcp.js';
import { reportIssues } from '../report-issues.js';
import { trapInterrupts } from '../watch-run.js';
import { boundsOf, describeListenError, startRunWatchers, untilInterrupted, watchFlagProblem, withInspect, type RunWatchers, type WatchFlags } from '../run-watchers.js';
import { createManifestKernel } from '../../manifest/manifest-kernel.js';

export interface RunFlags extends BoundOverrides, WatchFlags {
  readonly json?: boolean;
  readonly store?: string;
  readonly runId?: string;
}

/** `dualloop run <manifest>`: validates, opens the store, starts the run and follows it. */
export async function runCommand(manifestPath: string, flags: RunFlags, io: CommandIO): Promise<number> {
  const watchProblem = watchFlagProblem(flags);
  if (watchProblem !== undefined) {
    complain(io, watchProblem);
    return EXIT.usage;
  }
  const overrides = boundOverridesOf(flags);
  const prepared = await prepareManifest(manifestPath, overrides, io.cwd);
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
  const manifestStore = loaded.manifest.store === undefined ? undefined : resolve(loaded.directory, loaded.manifest.store.path);
  const opened = await openCommandStore({ flag: flags.store, ...(manifestStore === undefined ? {} : { manifestStore }), create: true, memory: true }, io);
  if (opened === undefined) return EXIT.usage;
  const trap = trapInterrupts();
  let watchers: RunWatchers | undefined;
  try {
    try {
      watchers = await startRunWatchers(flags, opened.store, boundsOf(options), io);
    } catch (error) {
      complain(io, describeListenError(error, flags));
      return EXIT.error;
    }
    const kernel = createManifestKernel(loaded, withInspect(options, watchers), opened.store);
    if (!kernel.ok) {
      reportIssues(io.stderr, kernel.issues);
      return EXIT.usage;
    }
    if (trap.interrupted !== undefined) return EXIT.canceled;
    let run;
    try {
      run = kernel.value.start(undefined, flags.runId === undefined ? {} : { runId: flags.runId });
    } catch (error) {
      if (isDualloopError(error, 'config_invalid')) complain(io, error.issues.map((issue) => `${issue.path === 'runId' ? '--run-id' : issue.path}: ${issue.message}`).join('\n'));
      else complain(io, `cannot start the run: ${describeError(error)}`);
      return EXIT.usage;
    }
    await opened.launches.save({ runId: run.runId, manifestPath: loaded.path, overrides }).catch((error: unknown) => {
      complain(io, `warning: ${describeError(error)}; \`dualloop resume\` of this run will need --manifest`);
    });
    watchers.announce(run.runId);
    const code = await followRun({ run, opened, options, name: loaded.manifest.name, json: flags.json === true, io, trap });
    trap.release();
    // The pages stay up after the run (a fast run would be over before one opens) until Ctrl-C.
    if (watchers.serving && trap.interrupted === undefined) {
      io.stderr.write('the run has ended; still serving the pages above: press Ctrl-C to exit\n');
      await untilInterrupted();
    }
    return code;
  } finally {
    trap.release();
    await watchers?.close();
    await opened.close();
  }
}

