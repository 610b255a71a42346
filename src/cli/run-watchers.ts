import { DEFAULT_BOUNDS, resolveBounds, type Bounds } from '../contracts/bounds.js';
import type { CheckpointStore } from '../contracts/store.js';
import { describeError } from '../errors.js';
import { createStatelyInspector, type StatelyInspector } from '../inspect/index.js';
import type { InspectObserver } from '../events/observers.js';
import type { KernelOptions } from '../kernel/options.js';
import { applyBoundOverrides } from '../manifest/bound-overrides.js';
import { loadManifest } from '../manifest/load-manifest.js';
import { createAccessToken, isLoopback } from '../viewer/access-control.js';
import { DEFAULT_HOST } from '../viewer/local-http.js';
import { startViewer, type Viewer } from '../viewer/index.js';
import { complain, type CommandIO } from './command-io.js';
import type { LaunchRecord } from './launch-records.js';

/** How a run is watched besides the terminal (`dualloop run --view / --inspect / --inspect-url`). */
export interface WatchFlags {
  readonly view?: boolean;
  readonly inspect?: boolean;
  readonly inspectUrl?: string;
  readonly host?: string;
  readonly port?: number;
}

/**
 * The viewer and the Stately inspector of one `dualloop run` (docs/viewer.md), started before
 * the run so that a port that cannot be had fails the command before anything runs. Where to look
 * goes to stderr (stdout may be NDJSON).
 */
export interface RunWatchers {
  /** The inspector's observer, for the kernel's `inspect` option. */
  readonly inspect: InspectObserver | undefined;
  /** Prints the viewer's page for the run, once the run exists. */
  announce(runId: string): void;
  /** Whether a page is served that the user may still be looking at after the run. */
  readonly serving: boolean;
  close(): Promise<void>;
}

/** Flags that make no sense alone: `--host` and `--port` need something to serve. */
export function watchFlagProblem(flags: WatchFlags): string | undefined {
  const serves = flags.view === true || (flags.inspect === true && flags.inspectUrl === undefined);
  if (!serves && flags.host !== undefined) return '--host applies to --view and --inspect only';
  if (flags.view !== true && flags.port !== undefined) return "--port is the viewer's: it needs --view";
  return undefined;
}

/** Starts what `flags` ask for; throws when it cannot listen (see describeListenError). */
export async function startRunWatchers(flags: WatchFlags, store: CheckpointStore, bounds: Bounds, io: CommandIO): Promise<RunWatchers> {
  const host = flags.host ?? DEFAULT_HOST;
  // Beyond loopback, the pages need a token: a fresh one per command, in the links it prints.
  const access = isLoopback(host) ? {} : { token: createAccessToken() };
  let inspector: StatelyInspector | undefined;
  let viewer: Viewer | undefined;
  const close = async () => {
    await Promise.all([viewer?.close(), inspector?.close()]);
  };
  try {
    if (flags.inspect === true || flags.inspectUrl !== undefined) {
      inspector = await createStatelyInspector({ ...(flags.inspectUrl === undefined ? { host, ...access } : { url: flags.inspectUrl }), onProblem: (message) => complain(io, `inspector: ${message}`) });
      io.stderr.write(
        inspector.mode === 'page'
          ? `Stately inspector: ${inspector.url}  (the page embeds the hosted inspector from stately.ai: it needs internet)\n`
          : `Stately inspector: sending inspection events to ${inspector.url}\n`,
      );
    }
    if (flags.view === true) viewer = await startViewer({ store, host, ...access, ...(flags.port === undefined ? {} : { port: flags.port }), bounds: () => bounds });
  } catch (error) {
    await close();
    throw error;
  }
  if ((viewer !== undefined || inspector?.mode === 'page') && !isLoopback(host)) complain(io, nonLoopbackWarning(host));
  return {
    inspect: inspector?.inspect,
    serving: viewer !== undefined || inspector?.mode === 'page',
    announce(runId) {
      if (viewer !== undefined) io.stderr.write(`viewer: ${viewer.urlFor(runId)}\n`);
    },
    close,
  };
}

/** What the command says when it listens beyond this machine (ADR/0101). */
export function nonLoopbackWarning(host: string): string {
  return `warning: listening on ${host}, not loopback: anyone who can reach it and has the link (it carries an access token) can see this run's events, tool arguments and results included`;
}

/** Kernel options with the inspector's observer added (a manifest has no `inspect` of its own). */
export function withInspect(options: KernelOptions, watchers: RunWatchers): KernelOptions {
  return watchers.inspect === undefined ? options : { ...options, inspect: watchers.inspect };
}

/** The run's bounds as the kernel resolves them from the options. */
export function boundsOf(options: KernelOptions): Bounds {
  return resolveBounds(DEFAULT_BOUNDS, options.bounds);
}

/**
 * A run's bounds for `dualloop view`: from the manifest it was started with and its bound
 * overrides, as the manifest says now; undefined when the run was not started by `dualloop run`
 * with this store or the manifest no longer loads.
 */
export async function launchBounds(launch: LaunchRecord | undefined): Promise<Bounds | undefined> {
  if (launch === undefined) return undefined;
  const loaded = await loadManifest(launch.manifestPath).catch(() => undefined);
  if (loaded === undefined || !loaded.ok) return undefined;
  const { manifest } = loaded.value;
  return resolveBounds(DEFAULT_BOUNDS, applyBoundOverrides(manifest.bounds, manifest.tasks ?? [], launch.overrides).bounds);
}

/** Resolves with the signal when the user presses Ctrl-C (or the process gets SIGTERM). */
export function untilInterrupted(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const onSignal = (signal: NodeJS.Signals) => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      resolve(signal);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}

/** "cannot listen on 127.0.0.1:8080: address already in use". */
export function describeListenError(error: unknown, flags: WatchFlags): string {
  const code = (error as { code?: unknown }).code;
  const where = `${flags.host ?? DEFAULT_HOST}${flags.port === undefined ? '' : `:${flags.port}`}`;
  if (code === 'EADDRINUSE') return `cannot listen on ${where}: the port is in use`;
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') return `cannot listen on ${where}: no such address here`;
  return `cannot start the viewer or inspector: ${describeError(error)}`;
}
