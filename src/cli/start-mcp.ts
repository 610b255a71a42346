import type { KernelOptions } from '../kernel/options.js';
import type { LoadedManifest } from '../manifest/load-manifest.js';
import type { McpServerConfig } from '../mcp/mcp-config.js';
import { describeError } from '../errors.js';

export type StartedMcp = { readonly options: KernelOptions; close(): Promise<void> } | { readonly error: string };

const VARIABLE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/**
 * `run` and `resume` (never `validate`) start the manifest's MCP servers and add their tools to
 * the options; the caller closes them when the run ends. `${VAR}` in env and header values is read
 * from the environment here, so the manifest holds no secret. A server that does not start is an
 * error naming it.
 */
export async function startManifestMcp(loaded: LoadedManifest, options: KernelOptions, environment: NodeJS.ProcessEnv = process.env): Promise<StartedMcp> {
  const block = loaded.manifest.mcp;
  if (block === undefined) return { options, close: async () => undefined };
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
  const { mcpTools } = await import('../mcp/mcp-tools.js');
  try {
    const toolset = await mcpTools({
      servers,
      ...(block.startTimeoutMs === undefined ? {} : { startTimeoutMs: block.startTimeoutMs }),
      ...(block.toolTimeoutMs === undefined ? {} : { toolTimeoutMs: block.toolTimeoutMs }),
    });
    return { options: { ...options, tools: [...(options.tools ?? []), ...toolset.tools] }, close: () => toolset.close() };
  } catch (error) {
    return { error: describeError(error) };
  }
}
