import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createKernel, defineTool, mcpTools, memoryStore, runWorkflow, type KernelEvent, type McpToolSource } from 'dualloop';
import { scriptedModel } from 'dualloop/testing';
import { startTestMcpServer, type TestMcpServer } from '../support/mcp-http-server.js';

/*
 * An MCP server over Streamable HTTP on 127.0.0.1, started by the test with the official server
 * package. It counts `tools/call` requests, so the tests can tell what reached the server.
 */

let server: TestMcpServer;
/** Each run opens its own session with the server and closes it when it ends. */
let web: McpToolSource;
const HEADER_SECRET = 'Bearer header-secret-0123456789';

beforeAll(async () => {
  server = await startTestMcpServer();
  web = mcpTools({ servers: { web: { url: server.url, headers: { Authorization: HEADER_SECRET } } }, toolTimeoutMs: 2_000 });
});
afterAll(async () => {
  await server.close();
});

const callsTo = (name: string) => server.calls.get(name) ?? 0;

describe('mcpTools over Streamable HTTP', () => {
  it('sends the configured headers and runs a call through the kernel', async () => {
    const before = callsTo('add');
    const result = await runWorkflow({ model: scriptedModel([{ toolCalls: [{ name: 'web__add', args: { a: 20, b: 22 } }] }, { text: 'done' }]), tools: [web], tasks: ['add'] });
    expect(result.tasks[0]?.turns[0]?.toolCalls[0]).toMatchObject({ name: 'web__add', isError: false, result: '42' });
    expect(callsTo('add')).toBe(before + 1);
    expect(server.lastHeaders()['authorization']).toBe(HEADER_SECRET);
  });

  it('refuses arguments that break the server’s JSON Schema without calling the server', async () => {
    const before = callsTo('add');
    const result = await runWorkflow({ model: scriptedModel([{ toolCalls: [{ name: 'web__add', args: { a: 1.5 } }] }, { text: 'done' }]), tools: [web], tasks: ['add'] });
    expect(result.tasks[0]?.turns[0]?.toolCalls[0]).toMatchObject({ isError: true, result: expect.stringMatching(/invalid arguments for "web__add"/) });
    expect(callsTo('add')).toBe(before);
  });

  it('passes MCP tools through the policy gate: a denied call never reaches the server', async () => {
    const before = callsTo('add');
    const result = await runWorkflow({
      model: scriptedModel([{ toolCalls: [{ name: 'web__add', args: { a: 1, b: 2 } }] }, { text: 'done' }]),
      tools: [web],
      tasks: ['add'],
      policy: { checkToolCall: ({ name }) => (name.startsWith('web__') ? { decision: 'deny', reason: 'no network tools' } : { decision: 'allow' }) },
    });
    expect(result.tasks[0]?.turns[0]?.toolCalls[0]).toMatchObject({ isError: true, result: expect.stringContaining('no network tools') });
    expect(callsTo('add')).toBe(before);
  });

  it('parks a call that needs approval and runs it once approved on resume', async () => {
    const store = memoryStore();
    const before = callsTo('add');
    const options = {
      model: scriptedModel([{ toolCalls: [{ name: 'web__add', args: { a: 3, b: 4 }, id: 'needs-ok' }] }, { text: 'done' }]),
      tools: [web],
      store,
      policy: { checkToolCall: () => ({ decision: 'require_approval' as const, reason: 'network call' }) },
    };
    const kernel = createKernel(options);
    const parked = await kernel.start(['add'], { runId: 'approve-mcp' }).result;
    expect(parked.stop.reason).toBe('awaiting_approval');
    expect(callsTo('add')).toBe(before);
    const approved = await (await kernel.resume('approve-mcp', { approvals: { 'needs-ok': 'approve' } })).result;
    expect(approved.stop.reason).toBe('goal_achieved');
    expect(callsTo('add')).toBe(before + 1);
  });

  it('turns an isError result into an error tool result the model sees', async () => {
    const model = scriptedModel([{ toolCalls: [{ name: 'web__fail', args: {} }] }, { text: 'sorry' }]);
    const result = await runWorkflow({ model, tools: [web], tasks: ['fail'] });
    expect(result.tasks[0]?.turns[0]?.toolCalls[0]).toMatchObject({ isError: true, result: 'the database is down' });
    expect(model.calls[1]?.messages.at(-1)).toMatchObject({ role: 'tool', isError: true, content: 'Error: the database is down' });
  });

  it('redacts a secret in an MCP result before the model, the events and the store see it', async () => {
    const store = memoryStore();
    const model = scriptedModel([{ toolCalls: [{ name: 'web__leak', args: {} }] }, { text: 'ok' }]);
    const run = createKernel({ model, tools: [web], store }).start(['leak'], { runId: 'leak' });
    const events: KernelEvent[] = [];
    for await (const event of run) events.push(event);
    await run.result;
    const everything = JSON.stringify([events, model.calls.map((call) => call.messages), store.readEvents('leak')]);
    expect(everything).not.toContain('sk-live-ABCDEFGHIJKLMNOP1234');
    expect(everything).toContain('[redacted]');
  });

  it('aborts a stalled call at the tool timeout; cancelling the run does not wait for the server', async () => {
    const result = await runWorkflow({ model: scriptedModel([{ toolCalls: [{ name: 'web__stall', args: {} }] }, { text: 'gave up' }]), tools: [web], tasks: ['stall'] });
    expect(result.tasks[0]?.turns[0]?.toolCalls[0]).toMatchObject({ isError: true, result: 'timed out after 2000 ms' });

    const run = createKernel({ model: scriptedModel([{ toolCalls: [{ name: 'web__stall', args: {} }] }]), tools: [web] }).start(['stall']);
    for await (const event of run) if (event.type === 'tool_execution_start') run.abort('operator');
    expect((await run.result).stop.reason).toBe('context_canceled');
  });

  it('replays a recorded MCP result on resume instead of calling the server again', async () => {
    const store = memoryStore();
    let held = true;
    let release: () => void = () => undefined;
    // A local tool that stalls the first time: the run is cancelled after the MCP call was recorded.
    const gate = defineTool({
      name: 'gate',
      description: 'Waits the first time',
      parameters: z.object({}),
      execute: (_args, { signal }) =>
        held
          ? new Promise((resolve) => {
              release = () => resolve('late');
              signal.addEventListener('abort', () => resolve('cut'), { once: true });
            })
          : 'open',
    });
    const model = scriptedModel([
      { toolCalls: [{ name: 'web__add', args: { a: 5, b: 6 }, id: 'mcp-add' }, { name: 'gate', args: {}, id: 'gate' }] },
      { text: 'done' },
    ]);
    const kernel = createKernel({ model, tools: [web, gate], store, toolExecution: 'sequential' });
    const before = callsTo('add');
    const run = kernel.start(['add then wait'], { runId: 'replay-mcp' });
    for await (const event of run) if (event.type === 'tool_execution_start' && event.name === 'gate') run.abort('crash stand-in');
    expect((await run.result).stop.reason).toBe('context_canceled');
    expect(callsTo('add')).toBe(before + 1);

    held = false;
    release();
    const resumed = await kernel.resume('replay-mcp');
    const events: KernelEvent[] = [];
    for await (const event of resumed) events.push(event);
    const result = await resumed.result;

    expect(result.stop.reason).toBe('goal_achieved');
    expect(callsTo('add')).toBe(before + 1);
    expect(events.find((event) => event.type === 'tool_execution_end' && event.toolCallId === 'mcp-add')).toMatchObject({ replayed: true, result: '11' });
  });
});

describe('mcpTools when an HTTP server is gone', () => {
  it('ends the task error (tool_failed) naming a server nothing listens for, without its header', async () => {
    const gone = await startTestMcpServer();
    await gone.close();
    const model = scriptedModel([{ text: 'never asked' }]);
    const secret = 'Bearer gone-secret-0123456789';
    const result = await runWorkflow({ model, tools: [mcpTools({ servers: { gone: { url: gone.url, headers: { Authorization: secret } } }, startTimeoutMs: 5_000 })], tasks: ['x'] });
    expect(result.stop).toMatchObject({ reason: 'error', code: 'tool_failed', detail: expect.stringContaining('MCP server "gone"') });
    expect(model.calls).toHaveLength(0);
    expect(JSON.stringify(result)).not.toContain('gone-secret');
  });

  it('fails a call in flight as an error result when the server goes away, and the next call too', async () => {
    const leaving = await startTestMcpServer();
    const model = scriptedModel([{ toolCalls: [{ name: 'far__stall', args: {}, id: 'stall' }] }, { toolCalls: [{ name: 'far__add', args: { a: 1, b: 2 }, id: 'add' }] }, { text: 'done' }]);
    const run = createKernel({ model, tools: [mcpTools({ servers: { far: { url: leaving.url } }, toolTimeoutMs: 600_000 })] }).start(['stall']);
    for await (const event of run) if (event.type === 'tool_execution_start' && event.name === 'far__stall') void leaving.close();
    const result = await run.result;
    expect(result.stop.reason).toBe('goal_achieved');
    expect(result.tasks[0]?.turns.map((turn) => turn.toolCalls[0])).toMatchObject([
      { id: 'stall', isError: true, result: expect.stringMatching(/MCP server "far" failed the call/) },
      { id: 'add', isError: true, result: expect.stringMatching(/MCP server "far"/) },
      undefined,
    ]);
  });
});
