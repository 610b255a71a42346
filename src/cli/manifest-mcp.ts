import type { KernelOptions } from '../kernel/options.js';
import type { LoadedManifest } from '../manifest/load-manifest.js';
import { manifestMcpSource } from '../manifest/manifest-mcp-source.js';

export type ManifestMcp = { readonly options: KernelOptions } | { readonly error: string };

/**
 * `run`, `resume`, `fork` and `worker` (never `validate`) add the manifest's MCP servers to the
 * options as one tool source: each run starts them at its first need and stops them when it ends
 * (ADR/0143), so nothing is started here. `${VAR}` in env and header values is read from the
 * environment here, so the manifest holds no secret; an unset one is an error naming it.
 */
export function addManifestMcp(loaded: LoadedManifest, options: KernelOptions, environment: NodeJS.ProcessEnv = process.env): ManifestMcp {
  const block = loaded.manifest.mcp;
  if (block === undefined) return { options };
  const made = manifestMcpSource(block, environment);
  if ('error' in made) return made;
  return { options: { ...options, tools: [...(options.tools ?? []), made.source] } };
}
