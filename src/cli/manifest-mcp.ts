import type { KernelOptions } from '../kernel/options.js';
import type { LoadedManifest } from '../manifest/load-manifest.js';
import type { McpServerConfig } from '../mcp/mcp-config.js';
import { mcpTools } from '../mcp/mcp-tools.js';
import { describeError } from '../errors.js';

export type ManifestMcp = { readonly options: KernelOptions } | { readonly error: string };

const VARIABLE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/**
 * `run`, `resume`, `fork` and `worker` (never `validate`) add the manifest's MCP servers to the
 * options as one tool source: each run starts them at its first need and stops them when it ends
 * (ADR/0143), so nothing is started here. `${VAR}` in env and header values is read from the
 * environment here, so the manifest holds no secret; an unset one is an error naming it.
 */
export function addManifestMcp(loaded: LoadedManifest, options: KernelOptions, environment: NodeJS.ProcessEnv = process.env): ManifestMcp {
  const block = loaded.manifest.mcp;
  if (block === undefined) return { options };
  const missing: string[] = [];
  const expand = (values: Readonly<Record<string, string>> | undefined, at: string) =>
    values === undefined
      ? undefined
      : Object.fromEntries(
          Object.entries(values).map(([key, value]) => [
            key,
            value.replace(VARIABLE, (_match, name: string) => {
              const found = environment[name];
              if (found === undefined) missing.push(`${at}.${key}: the environment variable ${name} is not set`);
              return found ?? '';
            }),
          ]),
        );
  const servers: Record<string, McpServerConfig> = {};
  for (const [name, config] of Object.entries(block.servers)) {
    const at = `mcp.servers.${name}`;
    if ('url' in config) {
      const headers = expand(config.headers, `${at}.headers`);
      servers[name] = { url: config.url, ...(headers === undefined ? {} : { headers }) };
    } else {
      const env = expand(config.env, `${at}.env`);
      servers[name] = { ...config, ...(env === undefined ? {} : { env }) };
    }
  }
  if (missing.length > 0) return { error: missing.join('\n') };
  try {
    const source = mcpTools({
      servers,
      ...(block.startTimeoutMs === undefined ? {} : { startTimeoutMs: block.startTimeoutMs }),
      ...(block.toolTimeoutMs === undefined ? {} : { toolTimeoutMs: block.toolTimeoutMs }),
    });
    return { options: { ...options, tools: [...(options.tools ?? []), source] } };
  } catch (error) {
    return { error: describeError(error) };
  }
}
