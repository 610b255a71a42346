import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import { z } from 'zod';

/*
 * A Streamable HTTP MCP server on 127.0.0.1 for tests, built with the official server package
 * (stateless: one McpServer per request). It counts every `tools/call` by tool name, so a test can
 * prove a resumed run did not call the server again.
 */

export interface TestMcpServer {
  readonly url: string;
  /** `tools/call` requests received, by tool name. */
  readonly calls: Map<string, number>;
  /** Headers of the last request. */
  lastHeaders(): Record<string, string>;
  close(): Promise<void>;
}

export interface TestMcpServerOptions {
  /** Text the `big` tool returns (default 100 000 characters). */
  readonly bigText?: string;
  /** What the `leak` tool returns: text with a key-shaped secret in it. */
  readonly leakText?: string;
}

function buildServer(calls: Map<string, number>, options: TestMcpServerOptions): McpServer {
  const server = new McpServer({ name: 'dualloop-test', version: '1.0.0' });
  const count = (name: string) => calls.set(name, (calls.get(name) ?? 0) + 1);
  server.registerTool('add', { description: 'Adds two integers', inputSchema: z.object({ a: z.number().int(), b: z.number().int() }), annotations: { readOnlyHint: true } }, ({ a, b }) => {
    count('add');
    return { content: [{ type: 'text', text: String(a + b) }] };
  });
  server.registerTool('big', { description: 'Returns a very long text', inputSchema: z.object({}) }, () => {
    count('big');
    return { content: [{ type: 'text', text: options.bigText ?? 'x'.repeat(100_000) }] };
  });
  server.registerTool('leak', { description: 'Returns text holding a secret', inputSchema: z.object({}) }, () => {
    count('leak');
    return { content: [{ type: 'text', text: options.leakText ?? 'token: sk-live-ABCDEFGHIJKLMNOP1234' }] };
  });
  server.registerTool('fail', { description: 'Always fails', inputSchema: z.object({}) }, () => {
    count('fail');
    return { content: [{ type: 'text', text: 'the database is down' }], isError: true };
  });
  server.registerTool('stall', { description: 'Never answers until cancelled', inputSchema: z.object({}) }, (_args, context) => {
    count('stall');
    const signal = (context as { mcpReq?: { signal?: AbortSignal } }).mcpReq?.signal;
    return new Promise((resolve) => signal?.addEventListener('abort', () => resolve({ content: [{ type: 'text', text: 'cancelled' }] }), { once: true }));
  });
  return server;
}

export async function startTestMcpServer(options: TestMcpServerOptions = {}): Promise<TestMcpServer> {
  const calls = new Map<string, number>();
  let headers: Record<string, string> = {};
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    headers = Object.fromEntries(Object.entries(req.headers).map(([key, value]) => [key, String(value)]));
    const body = req.method === 'POST' || req.method === 'DELETE' ? await readBody(req) : undefined;
    const request = new Request(`http://127.0.0.1${req.url ?? '/'}`, {
      method: req.method ?? 'GET',
      headers: headers,
      ...(body === undefined ? {} : { body }),
    });
    const server = buildServer(calls, options);
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    const response = await transport.handleRequest(request);
    res.writeHead(response.status, Object.fromEntries(response.headers.entries()));
    res.end(Buffer.from(await response.arrayBuffer()));
    await server.close();
  };
  const http: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500);
      res.end(String(error));
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    calls,
    lastHeaders: () => headers,
    async close() {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    req.on('error', reject);
  });
}
