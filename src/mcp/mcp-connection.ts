import type { Client } from '@modelcontextprotocol/client';
import { describeError, McpError } from '../errors.js';
import { Redactor } from '../redaction/redactor.js';
import { expandSecrets } from '../redaction/secret-values.js';
import { configuredSecrets, type McpServerConfig } from './mcp-config.js';

/** The parts of the MCP client's results dualloop reads. */
export type McpToolInfo = Awaited<ReturnType<Client['listTools']>>['tools'][number];
export type McpCallResult = Awaited<ReturnType<Client['callTool']>>;

const STDERR_TAIL = 2_000;

interface Live {
  readonly client: Client;
  readonly stderrTail: () => string;
}

/**
 * One configured server: started on first use, started again on the next use after it died,
 * closed once by `close()` (a start in progress included). A server that dies fails its calls in flight (the client rejects
 * pending requests on close), so nothing waits on a dead process.
 */
export class McpServerHandle {
  private live: Promise<Live> | undefined;
  /** The client of a start in progress, until its handshake ends. */
  private starting: Client | undefined;
  private closed = false;
  private lastExit: string | undefined;
  /** The server's header (HTTP) or environment (stdio) values: its tools list them for the kernel's redactor. */
  readonly secrets: readonly string[];
  private redactor: Redactor | undefined;

  constructor(
    readonly name: string,
    private readonly config: McpServerConfig,
    private readonly startTimeoutMs: number,
  ) {
    this.secrets = configuredSecrets(config);
  }

  /** The server's tools (`tools/list`, all pages), starting the server if needed. */
  async listTools(): Promise<McpToolInfo[]> {
    const { client } = await this.connection();
    const listed = await withDeadline(client.listTools(undefined, { timeout: this.startTimeoutMs }), this.startTimeoutMs, 'tools/list');
    return listed.tools;
  }

  async callTool(name: string, args: unknown, options: { readonly signal: AbortSignal; readonly timeoutMs: number }): Promise<McpCallResult> {
    const { client } = await this.connection();
    return client.callTool({ name, arguments: (args ?? {}) as Record<string, unknown> }, { signal: options.signal, timeout: options.timeoutMs });
  }

  async close(): Promise<void> {
    this.closed = true;
    const live = this.live;
    this.live = undefined;
    if (live === undefined) return;
    // A start in progress gives up at once (its handshake fails) instead of finishing first.
    void this.starting?.close().catch(() => undefined);
    try {
      await (await live).client.close();
    } catch {
      // A server that failed to start has nothing left to close.
    }
  }

  /** A message safe to show: configured secrets and key-shaped tokens removed. */
  redact(text: string): string {
    this.redactor ??= new Redactor(expandSecrets(this.secrets));
    return this.redactor.text(text);
  }

  private connection(): Promise<Live> {
    if (this.closed) return Promise.reject(new McpError({ code: 'server_closed', server: this.name, message: `MCP server "${this.name}": the tool set was closed` }));
    if (this.live === undefined) {
      const starting = this.start();
      this.live = starting;
      starting.catch(() => {
        if (this.live === starting) this.live = undefined;
      });
    }
    return this.live;
  }

  private async start(): Promise<Live> {
    const module = await import('@modelcontextprotocol/client');
    const client = new module.Client({ name: 'dualloop', version: '1' });
    let tail = '';
    let transport;
    if ('url' in this.config) {
      transport = new module.StreamableHTTPClientTransport(new URL(this.config.url), { requestInit: { headers: { ...this.config.headers } } });
    } else {
      const stdio = await import('@modelcontextprotocol/client/stdio');
      transport = new stdio.StdioClientTransport({
        command: this.config.command,
        args: [...(this.config.args ?? [])],
        env: { ...stdio.getDefaultEnvironment(), ...this.config.env },
        stderr: 'pipe',
        ...(this.config.cwd === undefined ? {} : { cwd: this.config.cwd }),
      });
      transport.stderr?.on('data', (chunk: Buffer) => {
        tail = (tail + chunk.toString('utf8')).slice(-STDERR_TAIL);
      });
    }
    const stderrTail = () => this.redact(tail.trim());
    this.starting = client;
    try {
      await withDeadline(client.connect(transport, { timeout: this.startTimeoutMs }), this.startTimeoutMs, 'the handshake');
      if (this.closed) throw new Error('the tool set was closed during the handshake');
    } catch (error) {
      await client.close().catch(() => undefined);
      const stderr = stderrTail();
      throw new McpError({
        code: 'server_start_failed',
        server: this.name,
        message: this.redact(`MCP server "${this.name}" did not start (${this.describeTarget()}): ${describeError(error)}`) + (stderr === '' ? '' : `; stderr: ${stderr}`),
        cause: error,
      });
    } finally {
      this.starting = undefined;
    }
    const live = { client, stderrTail };
    client.onclose = () => {
      const stderr = stderrTail();
      this.lastExit = stderr === '' ? 'the connection closed' : `the connection closed; stderr: ${stderr}`;
      if (this.live !== undefined) void this.live.then((current) => current === live && (this.live = undefined), () => undefined);
    };
    return live;
  }

  /** Why the server is gone, when it died (for the error the model sees). */
  exitDetail(): string | undefined {
    return this.lastExit;
  }

  private describeTarget(): string {
    return 'url' in this.config ? `url ${this.config.url}` : `command ${JSON.stringify(this.config.command)}`;
  }
}

/** Rejects when `promise` has not settled after `ms`: a silent server must not hang the run. */
function withDeadline<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not complete within ${ms} ms`)), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}
