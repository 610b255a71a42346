import type { AsyncDisposableWhereDeclared } from '../contracts/async-disposable.js';
import type { OpenedToolSource, ToolSource, ToolSourceContext } from '../contracts/tool.js';
import type { Tool } from '../contracts/tool.js';
import { McpError } from '../errors.js';
import { configuredSecrets, resolveMcpOptions, type McpToolsOptions, type ResolvedMcpOptions } from './mcp-config.js';
import { McpServerHandle } from './mcp-connection.js';
import { dualloopToolName, toDualloopTool } from './mcp-tool.js';

export type { McpHttpServer, McpServerConfig, McpStdioServer, McpToolsOptions } from './mcp-config.js';

/** The tools of a set of started MCP servers, and how to stop them (`close()`, or `await using`). */
export type McpToolset = OpenedMcpServers & AsyncDisposableWhereDeclared;

/** What `McpToolset` has beside `[Symbol.asyncDispose]`. */
export interface OpenedMcpServers extends OpenedToolSource {
  /** Every server's tools, named `<server>__<tool>`, in server then listing order. */
  readonly tools: readonly Tool[];
  /** Stops every server (child processes end, HTTP sessions close). Idempotent; later calls fail as error results. */
  close(): Promise<void>;
}

/** MCP servers as a tool source: nothing runs until a run (or the caller) opens it. */
export interface McpToolSource extends ToolSource {
  /** `mcp:<server>,<server>…` */
  readonly name: string;
  /** The configured server names. */
  readonly servers: readonly string[];
  /**
   * Starts every server and lists its tools. The kernel calls it at a run's first need and
   * closes the set when the run ends; call it yourself only to use the tools outside a kernel
   * (then close the set). Rejects with `McpError` `server_start_failed` naming the server when one
   * does not start (the others are closed first), or `server_closed` when `signal` aborted.
   */
  open(context?: Partial<ToolSourceContext>): Promise<McpToolset>;
}

/**
 * The tools of MCP servers (stdio or Streamable HTTP, through `@modelcontextprotocol/client`,
 * loaded only when a server starts), given to the kernel as a tool source:
 * `createKernel({ tools: [...yourTools, mcpTools({ servers })] })`. Each run starts the servers
 * at its first need — before its first model call, which lists their tools — and stops them when
 * it ends (ADR/0143). The tools pass through the kernel's tool path like any other: argument
 * validation, policy gate, approvals, hooks, timeouts, the AbortSignal, size limits, redaction,
 * and recording/replay on resume. A server that fails to start ends the task `error`
 * (`tool_failed`, naming it); one that dies later fails its calls as error results and is started
 * again on its next call.
 *
 * Throws `ConfigError` naming every bad field; starts nothing.
 */
export function mcpTools(options: McpToolsOptions): McpToolSource {
  const resolved = resolveMcpOptions(options);
  return Object.freeze({
    kind: 'tool_source' as const,
    name: `mcp:${resolved.servers.map(([name]) => name).join(',')}`,
    servers: Object.freeze(resolved.servers.map(([name]) => name)),
    secrets: Object.freeze(resolved.servers.flatMap(([, config]) => configuredSecrets(config))),
    open: (context: Partial<ToolSourceContext> = {}) => openServers(resolved, context.signal),
  });
}

async function openServers(resolved: ResolvedMcpOptions, signal: AbortSignal | undefined): Promise<McpToolset> {
  const handles = resolved.servers.map(([name, config]) => new McpServerHandle(name, config, resolved.startTimeoutMs));
  const close = async () => {
    await Promise.all(handles.map((handle) => handle.close()));
  };
  const ended = () => new McpError({ code: 'server_closed', server: handles.map((handle) => handle.name).join(','), message: 'MCP servers: the run ended before they started' });
  const aborted = () => signal?.aborted === true;
  if (aborted()) throw ended();
  // The run ended while the servers were starting: stop them now rather than after the handshake.
  const onAbort = () => void close();
  signal?.addEventListener('abort', onAbort, { once: true });
  let listed;
  try {
    listed = await Promise.allSettled(handles.map((handle) => handle.listTools()));
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
  if (aborted()) {
    await close();
    throw ended();
  }
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
