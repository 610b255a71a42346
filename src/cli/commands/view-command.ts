import { displayPath } from '../../manifest/load-manifest.js';
import { startViewer, type Viewer } from '../../viewer/index.js';
import { complain, type CommandIO } from '../command-io.js';
import { EXIT } from '../exit-codes.js';
import { openExistingStore } from '../open-store.js';
import { createAccessToken, isLoopback } from '../../viewer/access-control.js';
import { describeListenError, launchBounds, nonLoopbackWarning, untilInterrupted } from '../run-watchers.js';

export interface ViewFlags {
  readonly store?: string;
  readonly host?: string;
  readonly port?: number;
}

/**
 * `dualloop view [runId]`: serves the local viewer (docs/viewer.md) on a store's runs until
 * Ctrl-C: a finished run to replay, or a run another process is writing, followed live.
 */
export async function viewCommand(runId: string | undefined, flags: ViewFlags, io: CommandIO): Promise<number> {
  const opened = openExistingStore(flags.store, io);
  if (opened === undefined) return EXIT.usage;
  let viewer: Viewer | undefined;
  try {
    if (runId !== undefined && (await opened.store.getRun(runId)) === undefined) {
      complain(io, `no run ${runId} in ${displayPath(opened.path, io.cwd)}`);
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
        bounds: (id) => launchBounds(opened.launches.load(id)),
      });
    } catch (error) {
      complain(io, describeListenError(error, flags));
      return EXIT.error;
    }
    if (beyondLoopback) complain(io, nonLoopbackWarning(flags.host!));
    io.stdout.write(`viewer: ${viewer.url}\n`);
    io.stderr.write('serving until Ctrl-C\n');
    await untilInterrupted();
    return EXIT.completed;
  } finally {
    await viewer?.close();
    opened.close();
  }
}
