/**
 * The manifest's `mcp:` block as a tool source (docs/mcp.md, ADR/0143): making one starts nothing
 * (each run opens its own servers at its first need). `${VAR}` in env and header values is read
 * from the environment here, so the manifest holds no secret; an unset one is an error naming it.
 * An agent's source (ADR/0481) starts only the servers whose tools it names and lists only those.
 */
import type { OpenedToolSource, ToolSource, ToolSourceContext } from '../contracts/tool.js';
import { describeError } from '../errors.js';
import type { McpServerConfig } from '../mcp/mcp-config.js';
import { mcpTools } from '../mcp/mcp-tools.js';
import type { Manifest } from './manifest-schema.js';

export type McpBlock = NonNullable<Manifest['mcp']>;

const VARIABLE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** The block's servers (or those named in `only`) as one tool source, or every problem at once. */
export function manifestMcpSource(block: McpBlock, environment: NodeJS.ProcessEnv, only?: ReadonlySet<string>): { readonly source: ToolSource } | { readonly error: string } {
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
    if (only !== undefined && !only.has(name)) continue;
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
    return {
      source: mcpTools({
        servers,
        ...(block.startTimeoutMs === undefined ? {} : { startTimeoutMs: block.startTimeoutMs }),
        ...(block.toolTimeoutMs === undefined ? {} : { toolTimeoutMs: block.toolTimeoutMs }),
      }),
    };
  } catch (error) {
    return { error: describeError(error) };
  }
}

/**
 * The MCP tools an agent names (`<server>__<tool>`; all of them with `names` undefined) as a
 * source of their own. A problem making the source (an unset `${VAR}`) is its open's failure, so
 * the child run's task ends `error` naming it — as the parent's run would have stopped already.
 */
export function agentMcpSource(block: McpBlock, environment: NodeJS.ProcessEnv, names?: readonly string[]): ToolSource {
  const servers = names === undefined ? undefined : new Set(Object.keys(block.servers).filter((server) => names.some((name) => name.startsWith(`${server}__`))));
  const made = manifestMcpSource(block, environment, servers);
  const label = names === undefined ? Object.keys(block.servers).join(',') : names.join(',');
  return Object.freeze({
    kind: 'tool_source' as const,
    name: `mcp:${label}`,
    ...('source' in made && made.source.secrets !== undefined ? { secrets: made.source.secrets } : {}),
    open: async (context: ToolSourceContext): Promise<OpenedToolSource> => {
      if ('error' in made) throw new Error(made.error);
      const opened = await made.source.open(context);
      if (names === undefined) return opened;
      const wanted = new Set(names);
      return { tools: opened.tools.filter((tool) => wanted.has(tool.name)), close: () => opened.close() };
    },
  });
}
