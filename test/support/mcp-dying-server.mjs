// A stdio MCP server for tests, built with the official server package: `ping` answers,
// `die` exits the process in the middle of the call (a crashed server).
// Arguments: `--pid-file PATH` appends its pid to PATH when it starts, so a test can tell whether
// and when it ran; `--linger` keeps it running after its stdin closes, so only a signal from the
// client (or the test) stops it.
import { appendFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { McpServer } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';

const { values } = parseArgs({ options: { 'pid-file': { type: 'string' }, linger: { type: 'boolean' } } });
if (values['pid-file']) appendFileSync(values['pid-file'], `${process.pid}\n`);
if (values.linger) setInterval(() => undefined, 60_000);
const server = new McpServer({ name: 'dying', version: '1.0.0' });
server.registerTool('ping', { description: 'Answers pong', inputSchema: z.object({}) }, () => ({ content: [{ type: 'text', text: `pong from ${process.pid}` }] }));
server.registerTool('die', { description: 'Exits mid-call', inputSchema: z.object({}) }, () => {
  process.stderr.write('dying on purpose\n');
  process.exit(7);
});
await server.connect(new StdioServerTransport());
