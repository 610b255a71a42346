import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAICompatibleServer, textAnswer, toolCallAnswer, type OpenAICompatibleServer } from '../support/openai-compatible-server.js';
import { compileInConsumer, packedConsumer } from '../support/packed-package.js';

/*
 * Issue 20's check: a consumer project built from `npm pack` (strict, `nodenext`) that installed the
 * real packages beside dualloop — @ai-sdk/openai-compatible, @opentelemetry/api and sdk-trace-base,
 * @modelcontextprotocol/server-everything — runs one program with all three: an AI SDK model
 * (answered by a local Chat Completions server on 127.0.0.1), an MCP server over stdio, and an
 * OpenTelemetry in-memory exporter. It must typecheck and run. Everything is linked from this
 * repository's node_modules: no registry, no internet.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const NODE = join(ROOT, 'node_modules', '.bin', 'node');
const run = promisify(execFile);
const INSTALLED = ['@ai-sdk/openai-compatible', '@opentelemetry/api', '@opentelemetry/sdk-trace-base', '@modelcontextprotocol/server-everything'];

const PROGRAM = `
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { aiSdkModel, createKernel, mcpTools } from 'dualloop';

const exporter = new InMemorySpanExporter();
trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));

const baseURL = process.env['OPENAI_BASE_URL'];
if (baseURL === undefined) throw new Error('OPENAI_BASE_URL is not set');
const local = createOpenAICompatible({ name: 'local', baseURL, apiKey: 'sk-local-0123456789', includeUsage: true });

// The reference MCP server, started with this Node (no npx, no network).
const packageJson = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/package.json');
const everything = mcpTools({ servers: { everything: { command: process.execPath, args: [join(dirname(packageJson), 'dist', 'index.js'), 'stdio'] } } });

const kernel = createKernel({ name: 'demo', model: aiSdkModel(local.chatModel('demo-model')), tools: [everything] });
const result = await kernel.start(['Add 2 and 40 with the MCP server.']).result;

const spans = exporter.getFinishedSpans().map((span) => ({
  name: span.name,
  id: span.spanContext().spanId,
  parent: span.parentSpanContext?.spanId,
  attributes: span.attributes,
}));
console.log(JSON.stringify({ stop: result.stop, toolCalls: result.tasks[0]?.turns[0]?.toolCalls ?? [], spans }));
`;

interface Span {
  readonly name: string;
  readonly id: string;
  readonly parent?: string;
  readonly attributes: Record<string, unknown>;
}

let consumer: string;
let server: OpenAICompatibleServer;

beforeAll(async () => {
  consumer = await packedConsumer(INSTALLED);
  server = await startOpenAICompatibleServer();
}, 120_000);
afterAll(() => server?.close());

describe('a consumer of the packed package with an AI SDK provider, an MCP server and OpenTelemetry', () => {
  it('typechecks (strict, nodenext) and runs: the stop, the MCP tool result and the span tree', async () => {
    const { dir, compiled } = await compileInConsumer(consumer, { 'main.ts': PROGRAM });
    expect(compiled.output).toBe('');

    server.enqueue(toolCallAnswer([{ id: 'call_sum', name: 'everything__get-sum', fragments: ['{"a":2,', '"b":40}'] }], { usage: [30, 12] }), textAnswer(['2 + 40 = 42'], { usage: [50, 8] }));
    const { stdout, stderr } = await run(NODE, ['out/main.js'], { cwd: dir, timeout: 60_000, env: { ...process.env, OPENAI_BASE_URL: server.baseURL } });
    expect(stderr).toBe('');
    const output = JSON.parse(stdout) as { stop: { reason: string }; toolCalls: { name: string; isError: boolean; result: unknown }[]; spans: Span[] };

    expect(output.stop.reason).toBe('goal_achieved');
    expect(output.toolCalls).toEqual([expect.objectContaining({ name: 'everything__get-sum', isError: false, result: expect.stringContaining('42') })]);
    // The first request already listed the MCP server's tools.
    expect(server.requests[0]?.body.tools.map((tool: { function: { name: string } }) => tool.function.name)).toContain('everything__get-sum');

    const named = (name: string) => output.spans.filter((span) => span.name === name);
    const [root] = named('invoke_workflow demo');
    const [agent] = named('invoke_agent task-1');
    const chats = named('chat demo-model');
    const [tool] = named('execute_tool everything__get-sum');
    expect(root?.parent).toBeUndefined();
    expect(root).toMatchObject({ attributes: { 'gen_ai.operation.name': 'invoke_workflow', 'gen_ai.provider.name': 'local.chat', 'dualloop.stop.reason': 'goal_achieved' } });
    expect(agent).toMatchObject({ parent: root!.id, attributes: { 'gen_ai.operation.name': 'invoke_agent', 'dualloop.task.id': 'task-1' } });
    expect(chats.map((span) => span.parent)).toEqual([agent!.id, agent!.id]);
    expect(chats.map((span) => [span.attributes['gen_ai.usage.input_tokens'], span.attributes['gen_ai.usage.output_tokens']])).toEqual([
      [30, 12],
      [50, 8],
    ]);
    expect(tool).toMatchObject({ parent: agent!.id, attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'everything__get-sum', 'gen_ai.tool.call.id': 'call_sum' } });
    expect(output.spans).toHaveLength(5);
  });
});
