import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ConfigError, McpError, mcpTools, runWorkflow, type McpToolSource } from 'dualloop';
import { scriptedModel } from 'dualloop/testing';

/*
 * The reference server @modelcontextprotocol/server-everything over stdio (offline: the tools
 * used here compute locally), and a small server of our own that exits mid-call.
 */

const everything = fileURLToPath(new URL('../../node_modules/@modelcontextprotocol/server-everything/dist/index.js', import.meta.url));
const dying = fileURLToPath(new URL('../support/mcp-dying-server.mjs', import.meta.url));

describe('mcpTools over stdio (server-everything)', () => {
  const source: McpToolSource = mcpTools({ servers: { everything: { command: process.execPath, args: [everything, 'stdio'] } }, toolTimeoutMs: 5_000 });

  it('names each tool <server>__<tool> and gives the model its JSON Schema in the first request', async () => {
    const model = scriptedModel([{ text: 'nothing to do' }]);
    await runWorkflow({ model, tools: [source], tasks: ['Look at the tools'] });
    const tools = model.calls[0]?.tools ?? [];
    expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['everything__echo', 'everything__get-sum', 'everything__get-tiny-image']));
    const sum = tools.find((tool) => tool.name === 'everything__get-sum');
    expect(sum?.parameters).toMatchObject({ type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] });
  });

  it('runs MCP tools through the kernel: results, validation errors and images', async () => {
    const model = scriptedModel([
      {
        toolCalls: [
          { name: 'everything__get-sum', args: { a: 2, b: 40 }, id: 'sum' },
          { name: 'everything__echo', args: { message: 'hello' }, id: 'echo' },
          { name: 'everything__get-sum', args: { a: 'two' }, id: 'bad' },
          { name: 'everything__get-tiny-image', args: {}, id: 'image' },
        ],
      },
      { text: 'done' },
    ]);
    const result = await runWorkflow({ model, tools: [source], tasks: ['Use the tools'] });

    const calls = Object.fromEntries((result.tasks[0]?.turns[0]?.toolCalls ?? []).map((call) => [call.id, call]));
    expect(calls['sum']).toMatchObject({ isError: false, result: expect.stringContaining('42') });
    expect(calls['echo']).toMatchObject({ isError: false, result: expect.stringContaining('hello') });
    expect(calls['bad']).toMatchObject({ isError: true, result: expect.stringMatching(/invalid arguments for "everything__get-sum"/) });
    expect(calls['image']).toMatchObject({ isError: false, result: expect.stringMatching(/\[image image\/png, \d+ bytes omitted\]/) });
    expect(model.calls[1]?.messages.filter((message) => message.role === 'tool')).toHaveLength(4);
  });

  it('cuts a call at the tool timeout and keeps the server usable', async () => {
    const slow = mcpTools({ servers: { everything: { command: process.execPath, args: [everything, 'stdio'] } }, toolTimeoutMs: 300 });
    const model = scriptedModel([
      { toolCalls: [{ name: 'everything__trigger-long-running-operation', args: { duration: 30, steps: 2 }, id: 'long' }] },
      { toolCalls: [{ name: 'everything__echo', args: { message: 'still here' }, id: 'after' }] },
      { text: 'done' },
    ]);
    const result = await runWorkflow({ model, tools: [slow], tasks: ['Wait'] });
    const [first, second] = result.tasks[0]?.turns ?? [];
    expect(first?.toolCalls[0]).toMatchObject({ isError: true, result: 'timed out after 300 ms' });
    expect(second?.toolCalls[0]).toMatchObject({ isError: false, result: expect.stringContaining('still here') });
  });
});

describe('mcpTools when a server fails', () => {
  it('turns a server that dies mid-call into an error result and starts it again on the next call', async () => {
    const model = scriptedModel([
      { toolCalls: [{ name: 'dying__die', args: {}, id: 'die' }] },
      { toolCalls: [{ name: 'dying__ping', args: {}, id: 'ping' }] },
      { text: 'done' },
    ]);
    const result = await runWorkflow({ model, tools: [mcpTools({ servers: { dying: { command: process.execPath, args: [dying] } } })], tasks: ['Crash it'] });
    const [first, second] = result.tasks[0]?.turns ?? [];
    expect(first?.toolCalls[0]).toMatchObject({ isError: true, result: expect.stringMatching(/MCP server "dying" failed the call/) });
    expect(second?.toolCalls[0]).toMatchObject({ isError: false, result: expect.stringMatching(/^pong from \d+$/) });
    expect(result.tasks[0]?.stop.reason).toBe('planner_stopped');
  });

  it('ends the task error (tool_failed) naming a server that does not start, with its stderr and without secrets', async () => {
    const secret = 'hunter2-very-secret';
    const broken = mcpTools({
      servers: {
        broken: { command: process.execPath, args: ['-e', 'process.stderr.write("boom: " + process.env.TOKEN + " sk-abcdefgh12345678"); process.exit(3)'], env: { TOKEN: secret } },
      },
    });
    const model = scriptedModel([{ text: 'never asked' }]);
    const result = await runWorkflow({ model, tools: [broken], tasks: ['x'] });
    expect(result.stop).toMatchObject({ reason: 'error', code: 'tool_failed', detail: expect.stringMatching(/MCP server "broken" did not start.*boom/) });
    expect(JSON.stringify(result)).not.toContain(secret);
    expect(JSON.stringify(result)).not.toContain('sk-abcdefgh12345678');
    expect(model.calls).toHaveLength(0);

    const error = await broken.open().then(() => undefined, (thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(McpError);
    expect(error).toMatchObject({ code: 'server_start_failed', server: 'broken' });
    expect((error as Error).message).not.toContain(secret);
  });

  it('rejects open() with McpError for a command that does not exist and for a silent server', async () => {
    await expect(mcpTools({ servers: { missing: { command: '/nonexistent/mcp-server' } } }).open()).rejects.toMatchObject({ name: 'McpError', code: 'server_start_failed', server: 'missing' });
    await expect(mcpTools({ servers: { silent: { command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'] } }, startTimeoutMs: 500 }).open()).rejects.toMatchObject({
      code: 'server_start_failed',
      message: expect.stringMatching(/within 500 ms/),
    });
  });

  it('fails calls of a tool set opened by the caller after its close as error results', async () => {
    const toolset = await mcpTools({ servers: { dying: { command: process.execPath, args: [dying] } } }).open();
    await toolset.close();
    const result = await runWorkflow({ model: scriptedModel([{ toolCalls: [{ name: 'dying__ping', args: {} }] }, { text: 'ok' }]), tools: toolset.tools, tasks: ['x'] });
    expect(result.tasks[0]?.turns[0]?.toolCalls[0]).toMatchObject({ isError: true, result: expect.stringMatching(/closed/) });
  });

  it('throws one ConfigError naming every bad server field before starting anything', () => {
    let error: unknown;
    try {
      mcpTools({ servers: { 'bad name!': { command: 'x' }, web: { url: 'ftp://host' }, both: { command: '' } } as never });
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).issues.map((issue) => issue.path)).toEqual(expect.arrayContaining(['servers.bad name!', 'servers.web.url', 'servers.both.command']));
  });
});
