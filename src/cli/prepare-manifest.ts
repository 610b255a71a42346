import type { KernelOptions } from '../kernel/options.js';
import type { BoundOverrides } from '../manifest/bound-overrides.js';
import { loadManifest, type LoadedManifest, type ManifestResult } from '../manifest/load-manifest.js';
import { buildKernelOptions, createManifestKernel } from '../manifest/manifest-kernel.js';

export interface PreparedManifest {
  readonly loaded: LoadedManifest;
  readonly options: KernelOptions;
}

/**
 * Everything `validate`, `run` and `resume` check before touching a store: the YAML, the schema,
 * the cassette or model block, the tools, the policy, and the kernel's own option validation.
 */
export async function prepareManifest(manifestPath: string, overrides: BoundOverrides, cwd: string): Promise<ManifestResult<PreparedManifest>> {
  const loaded = await loadManifest(manifestPath, cwd);
  if (!loaded.ok) return loaded;
  const options = await buildKernelOptions(loaded.value, overrides);
  if (!options.ok) return options;
  const checked = createManifestKernel(loaded.value, options.value);
  if (!checked.ok) return checked;
  return { ok: true, value: { loaded: loaded.value, options: options.value } };
}
