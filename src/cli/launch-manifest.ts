import type { BoundOverrides } from '../manifest/bound-overrides.js';
import type { CommandStore } from './store-target.js';

export type LaunchManifest =
  | { readonly path: string; readonly overrides: BoundOverrides }
  | { readonly problem: string };

/**
 * The manifest a stored run is rebuilt from (`resume`, `fork`): `--manifest` when given, else the
 * one its launch record names, with the bound overrides it was started with. A run the store does
 * not hold is said first, as `audit` and `view` say it: asking for `--manifest` would send the user
 * looking for a file when the run id (or the store) is what is wrong.
 */
export async function launchManifest(opened: CommandStore, runId: string, manifest: string | undefined): Promise<LaunchManifest> {
  if ((await opened.store.getRun(runId)) === undefined) return { problem: `no run ${runId} in ${opened.where}` };
  const launch = await opened.launches.load(runId);
  const path = manifest ?? launch?.manifestPath;
  if (path === undefined) return { problem: `run ${runId} was not started by \`dualloop run\` or \`dualloop submit\` with this store; pass --manifest PATH` };
  return { path, overrides: launch?.overrides ?? {} };
}
