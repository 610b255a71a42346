import type { Tool } from '../contracts/tool.js';
import { resolveMcpOptions, type McpToolsOptions } from './mcp-config.js';
import { McpServerHandle } from './mcp-connection.js';
import { dualloopToolName, toDualloopTool } from './mcp-tool.js';

export type { McpHttpServer, McpServerConfig, McpStdioServer, McpToolsOptions } from './mcp-config.js';

/** The tools of a set of MCP servers, and the servers' lifetime. */
export interface McpToolset {
  /** Every server's tools, named `<server>__<tool>`, in server then listing order. Pass them as `tools`. */
  readonly tools: readonly Tool[];
  /** Stops every server (child processes end, HTTP sessions close). Idempotent; later calls fail as error results. */
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/**
 * Starts the configured MCP servers (stdio or Streamable HTTP, through `@modelcontextprotocol/client`,
 * loaded only now), lists their tools and returns them as dualloop tools. The tools pass through
 * the kernel's tool path like any other: argument validation, policy gate, approvals, hooks,
 * timeouts, the AbortSignal, size limits, redaction, and recording/replay on resume.
 *
 * Throws `ConfigError` for invalid options before starting anything, and rejects with
 * `McpError` (`server_start_failed`, naming the server) when a server does not start; the servers
 * already started are closed first. A server that dies later fails its calls as error results and
 * is started again on its next call. Close the set when the run ends (`await using` works too).
 */
export async function mcpTools(options: McpToolsOptions): Promise<McpToolset> {
  const resolved = resolveMcpOptions(options);
  const handles = resolved.servers.map(([name, config]) => new McpServerHandle(name, config, resolved.startTimeoutMs));
  const close = async () => {
    await Promise.all(handles.map((handle) => handle.close()));
  };
  const listed = await Promise.allSettled(handles.map((handle) => handle.listTools()));
  const failed = listed.find((outcome) => outcome.status === 'rejected');
  if (failed !== undefined) {
    await close();
    throw failed.reason;
  }
  const tools: Tool[] = [];
  const names = new Set<string>();
  handles.forEach((handle, index) => {
    const outcome = listed[index] as PromiseFulfilledResult<Awaited<ReturnType<McpServerHandle['listTools']>>>;
    for (const info of outcome.value) {
      let name = dualloopToolName(handle.name, info.name);
      for (let suffix = 2; names.has(name); suffix += 1) name = dualloopToolName(handle.name, `${info.name}_${suffix}`);
      names.add(name);
      tools.push(toDualloopTool(handle, info, name, resolved.toolTimeoutMs));
    }
  });
  return { tools: Object.freeze(tools), close, [Symbol.asyncDispose]: close };
}
