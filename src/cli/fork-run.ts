/**
 * Forking a stored run from the command line (`dualloop fork`, and `dualloop view --control`'s
 * "fork from here"): the kernel is rebuilt from the manifest the source was started with and its
 * bound overrides, then the caller's; the fork gets a launch record of its own, so that
 * `dualloop resume` and a fork of the fork rebuild the same kernel.
 */
import type { ForkOptions } from '../contracts/fork.js';
import type { KernelOptions } from '../kernel/options.js';
import type { WorkflowRun } from '../kernel/workflow-run.js';
import { INNER_OVERRIDES, type BoundOverrides } from '../manifest/bound-overrides.js';
import type { LoadedManifest } from '../manifest/load-manifest.js';
import { createManifestKernel } from '../manifest/manifest-kernel.js';
import type { SourceIssue } from '../manifest/yaml-source.js';
import type { CommandStore } from './store-target.js';
import { launchManifest } from './launch-manifest.js';
import { prepareManifest } from './prepare-manifest.js';
import { addManifestMcp } from './manifest-mcp.js';

export interface ForkRequest {
  readonly sourceRunId: string;
  /** A task by number or id (`kernel.fork`'s `at`). */
  readonly at: ForkOptions['at'];
  readonly message?: string;
  readonly runId?: string;
  /** Bounds given for the fork, over the source's. */
  readonly overrides?: BoundOverrides;
  /** The manifest when the store has no launch record of the source. */
  readonly manifest?: string;
  readonly acceptChange?: boolean;
}

export type ForkOutcome =
  | { readonly ok: true; readonly run: WorkflowRun; readonly loaded: LoadedManifest; readonly options: KernelOptions }
  | { readonly ok: false; readonly problem: 'no_manifest' | 'manifest' | 'mcp'; readonly message?: string; readonly issues?: readonly SourceIssue[] };

/** Forks; rejects with the kernel's ConfigError or RunError (unknown run, missing point, taken id). */
export async function forkStoredRun(opened: CommandStore, request: ForkRequest, cwd: string): Promise<ForkOutcome> {
  const launch = await launchManifest(opened, request.sourceRunId, request.manifest);
  if ('problem' in launch) return { ok: false, problem: 'no_manifest', message: launch.problem };
  const own = request.overrides ?? {};
  const overrides: BoundOverrides = { ...launch.overrides, ...own };
  const prepared = await prepareManifest(launch.path, overrides, cwd);
  if (!prepared.ok) return { ok: false, problem: 'manifest', issues: prepared.issues };
  const { loaded } = prepared.value;
  // The manifest's MCP servers, as run and resume have them: the fork's run starts and stops them.
  const mcp = addManifestMcp(loaded, prepared.value.options);
  if ('error' in mcp) return { ok: false, problem: 'mcp', message: mcp.error };
  const { options } = mcp;
  const kernel = createManifestKernel(loaded, options, opened.store);
  if (!kernel.ok) return { ok: false, problem: 'manifest', issues: kernel.issues };
  // Outer overrides are the kernel's already; inner ones must also reach the task the point is in.
  const inner = Object.fromEntries(INNER_OVERRIDES.flatMap((key) => (own[key] === undefined ? [] : [[key, own[key]]])));
  const edit = {
    ...(request.message === undefined ? {} : { message: request.message }),
    ...(Object.keys(inner).length === 0 ? {} : { bounds: { inner } }),
  };
  const run = await kernel.value.fork(request.sourceRunId, {
    at: request.at,
    ...(request.runId === undefined ? {} : { runId: request.runId }),
    ...(Object.keys(edit).length === 0 ? {} : { edit }),
    ...(request.acceptChange === true ? { acceptChange: true } : {}),
  });
  await opened.launches.save({ runId: run.runId, manifestPath: loaded.path, overrides });
  return { ok: true, run, loaded, options };
}
