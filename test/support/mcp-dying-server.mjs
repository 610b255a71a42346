// A stdio MCP server for tests, built with the official server package: `ping` answers,
// `die` exits the process in the middle of the call (a crashed server).
import { McpServer } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';

const server = new McpServer({ name: 'dying', version: '1.0.0' });
server.registerTool('ping', { description: 'Answers pong', inputSchema: z.object({}) }, () => ({ content: [{ type: 'text', text: `pong from ${process.pid}` }] }));
server.registerTool('die', { description: 'Exits mid-call', inputSchema: z.object({}) }, () => {
  process.stderr.write('dying on purpose\n');
  process.exit(7);
});
await server.connect(new StdioServerTransport());
