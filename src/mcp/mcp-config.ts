import { z } from 'zod';
import { ConfigError } from '../errors.js';
import { zodIssues } from '../contracts/zod-issues.js';
import { lazySchema } from '../contracts/lazy-schema.js';

/** A server started as a child process, spoken to over stdin/stdout. */
export interface McpStdioServer {
  readonly command: string;
  readonly args?: readonly string[];
  /** Added to a minimal inherited environment (PATH, HOME…): the server does not see the rest of yours. */
  readonly env?: Readonly<Record<string, string>>;
  readonly cwd?: string;
}

/** A server reached over Streamable HTTP. */
export interface McpHttpServer {
  readonly url: string;
  /** Sent with every request (e.g. `Authorization`); their values are treated as secrets. */
  readonly headers?: Readonly<Record<string, string>>;
}

export type McpServerConfig = McpStdioServer | McpHttpServer;

export interface McpToolsOptions {
  /** By server name (1–32 letters, digits, `_`, `-`); each tool is named `<server>__<tool>`. */
  readonly servers: Readonly<Record<string, McpServerConfig>>;
  /** How long a server may take to start and answer the handshake and `tools/list` (default 30 000 ms). */
  readonly startTimeoutMs?: number;
  /** Each MCP tool's `timeoutMs` in the kernel (default 60 000 ms). */
  readonly toolTimeoutMs?: number;
}

export const SERVER_NAME = /^[A-Za-z0-9_-]{1,32}$/;

export const McpStdioServerSchema = lazySchema(() => z.strictObject({
  command: z.string().min(1, 'must be a non-empty command'),
  args: z.array(z.string()).optional(),
  env: z.record(z.string(), z.string()).optional(),
  cwd: z.string().min(1).optional(),
}));

export const McpHttpServerSchema = lazySchema(() => z.strictObject({
  url: z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' }),
  headers: z.record(z.string(), z.string()).optional(),
}));

export const McpServersSchema = lazySchema(() => z.record(
  z.string().regex(SERVER_NAME, 'server names are 1–32 letters, digits, "_" or "-"'),
  z.union([McpStdioServerSchema(), McpHttpServerSchema()], { error: 'must be { command, args?, env?, cwd? } or { url, headers? }' }),
));

const OptionsSchema = lazySchema(() => z.strictObject({
  servers: McpServersSchema().refine((servers) => Object.keys(servers).length > 0, 'must name at least one server'),
  startTimeoutMs: z.number().int().positive().optional(),
  toolTimeoutMs: z.number().int().positive().optional(),
}));

export interface ResolvedMcpOptions {
  readonly servers: ReadonlyArray<readonly [string, McpServerConfig]>;
  readonly startTimeoutMs: number;
  readonly toolTimeoutMs: number;
}

/** Validates the options before anything starts; throws one ConfigError naming every bad field. */
export function resolveMcpOptions(options: McpToolsOptions): ResolvedMcpOptions {
  const parsed = OptionsSchema().safeParse(options);
  if (!parsed.success) throw new ConfigError({ message: 'Invalid mcpTools options', issues: zodIssues(parsed.error) });
  return {
    servers: Object.entries(options.servers),
    startTimeoutMs: options.startTimeoutMs ?? 30_000,
    toolTimeoutMs: options.toolTimeoutMs ?? 60_000,
  };
}

/** Every configured value that must never be shown: header values and environment values. */
export function configuredSecrets(config: McpServerConfig): string[] {
  const values = 'url' in config ? Object.values(config.headers ?? {}) : Object.values(config.env ?? {});
  return values.filter((value) => value.length >= 4);
}
