import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { startOpenAICompatibleServer, textAnswer, toolCallAnswer } from '../support/openai-compatible-server.js';
import { isRunning, killLeftovers, serverPids } from '../support/server-pids.js';
import { parseNdjson, ROOT, runCli } from './cli-process.js';
import { useWorkspace } from './workspace.js';

/*
 * The manifest's ecosystem blocks end to end through the built CLI: `model.provider: ai-sdk` with a
 * module exporting @ai-sdk/openai-compatible's model (pointed at the local Chat Completions peer),
 * and `mcp.servers` with a stdio MCP server.
 */

const workspace = useWorkspace();
const DYING_SERVER = `${ROOT}test/support/mcp-dying-server.mjs`;

interface Tracing {
  readonly spansTo: string;
  /** `hangs`: the exporter's shutdown never settles (a collector that does not answer). */
  readonly exporterShutdown?: 'hangs';
}

/**
 * The model module; with `traced`, it also registers an OpenTelemetry tracer provider (as a user's
 * program would with an SDK) with a batching processor whose exporter appends each exported span
 * to that file as JSON.
 */
function writeManifest(baseURL: string, mcp: Record<string, unknown>, traced?: Tracing, tasks: readonly string[] = ['Ping the server']): string {
  const { write } = workspace();
  const traceTo = traced?.spansTo;
  const shutdown = traced?.exporterShutdown === 'hangs' ? '() => new Promise(() => {})' : 'async () => {}';
  const tracing =
    traceTo === undefined
      ? ''
      : `import { createRequire } from 'node:module';\nimport { appendFileSync } from 'node:fs';\n` +
        `const require = createRequire(${JSON.stringify(`${ROOT}package.json`)});\n` +
        `const { trace } = require('@opentelemetry/api');\n` +
        `const { BasicTracerProvider, BatchSpanProcessor } = require('@opentelemetry/sdk-trace-base');\n` +
        `const exporter = { export(spans, done) { for (const span of spans) appendFileSync(${JSON.stringify(traceTo)}, JSON.stringify({ name: span.name, id: span.spanContext().spanId, parent: span.parentSpanContext?.spanId, attributes: span.attributes }) + '\\n'); done({ code: 0 }); }, shutdown: ${shutdown} };\n` +
        // Batched, exported only on a flush: what the program holds at exit is lost unless the CLI flushes it.
        `trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(exporter, { scheduledDelayMillis: 600000, maxExportBatchSize: 512, maxQueueSize: 2048 })] }));\n`;
  write(
    'model.mjs',
    tracing +
      `import { createOpenAICompatible } from ${JSON.stringify(`${ROOT}node_modules/@ai-sdk/openai-compatible/dist/index.js`)};\n` +
      `export default createOpenAICompatible({ name: 'local', baseURL: ${JSON.stringify(baseURL)}, apiKey: 'sk-local', includeUsage: true }).chatModel('test-model');\n`,
  );
  return write('manifest.yaml', {
    name: 'ecosystem',
    model: { provider: 'ai-sdk', module: './model.mjs', maxRetries: 0 },
    mcp,
    tasks,
    // A policy may name MCP tools before their servers run.
    ...('local' in (mcp['servers'] as object) ? { policy: { allow: ['local__ping'] } } : {}),
  });
}

describe('a manifest with an AI SDK model and MCP servers', () => {
  it('runs: the AI SDK model calls the MCP tool over stdio, and the servers stop with the run', async () => {
    const server = await startOpenAICompatibleServer();
    const pids = workspace().path('server.pids');
    try {
      server.enqueue(toolCallAnswer([{ id: 'call_ping', name: 'local__ping', fragments: ['{}'] }]), textAnswer(['pong received']));
      // --linger: the server outlives its stdin, so only dualloop closing it makes it stop.
      const manifest = writeManifest(server.baseURL, { servers: { local: { command: process.execPath, args: [DYING_SERVER, '--pid-file', pids, '--linger'] } } });

      const result = await runCli(['run', manifest, '--store', 'runs.db', '--json'], { cwd: workspace().dir });

      expect(result.code, result.stderr).toBe(0);
      const events = parseNdjson(result.stdout);
      const [pid] = serverPids(pids);
      expect(events.find((event) => event.type === 'tool_execution_end')).toMatchObject({ name: 'local__ping', isError: false, result: `pong from ${pid}` });
      expect(events.at(-1)).toMatchObject({ type: 'workflow_end', stop: { reason: 'goal_achieved' } });
      expect(server.requests[0]?.body.tools.map((tool: { function: { name: string } }) => tool.function.name)).toEqual(['local__ping', 'local__die']);
      expect(serverPids(pids)).toHaveLength(1);
      expect(isRunning(pid!)).toBe(false);
    } finally {
      killLeftovers(pids);
      await server.close();
    }
  });

  it('fork starts the manifest’s MCP servers for the forked run and stops them with it', async () => {
    const server = await startOpenAICompatibleServer();
    const pids = workspace().path('server.pids');
    try {
      const ping = (id: string) => toolCallAnswer([{ id, name: 'local__ping', fragments: ['{}'] }]);
      server.enqueue(ping('call_1'), textAnswer(['first']), ping('call_2'), textAnswer(['second']), ping('call_3'), textAnswer(['forked']));
      const manifest = writeManifest(server.baseURL, { servers: { local: { command: process.execPath, args: [DYING_SERVER, '--pid-file', pids, '--linger'] } } }, undefined, ['Ping the server', 'Ping it again']);
      const source = await runCli(['run', manifest, '--store', 'runs.db', '--run-id', 'source'], { cwd: workspace().dir });
      expect(source.code, source.stderr).toBe(0);

      const fork = await runCli(['fork', 'source', '--at', '2', '--store', 'runs.db', '--run-id', 'forked', '--json'], { cwd: workspace().dir });

      expect(fork.code, fork.stderr).toBe(0);
      const [sourcePid, forkPid] = serverPids(pids);
      expect(forkPid).not.toBe(sourcePid);
      const ends = parseNdjson(fork.stdout).filter((event) => event.type === 'tool_execution_end');
      expect(ends).toEqual([expect.objectContaining({ name: 'local__ping', isError: false, result: `pong from ${forkPid}` })]);
      expect(server.requests.at(-2)?.body.tools.map((tool: { function: { name: string } }) => tool.function.name)).toEqual(['local__ping', 'local__die']);
      expect(isRunning(forkPid!)).toBe(false);
    } finally {
      killLeftovers(pids);
      await server.close();
    }
  }, 60_000);

  it('traces the run with the tracer provider a module of the manifest registered, flushing its batch before exit', async () => {
    const server = await startOpenAICompatibleServer();
    try {
      server.enqueue(toolCallAnswer([{ id: 'call_ping', name: 'local__ping', fragments: ['{}'] }]), textAnswer(['done']));
      const spansFile = workspace().path('spans.ndjson');
      const manifest = writeManifest(server.baseURL, { servers: { local: { command: process.execPath, args: [DYING_SERVER] } } }, { spansTo: spansFile });

      const result = await runCli(['run', manifest, '--store', 'runs.db'], { cwd: workspace().dir });

      expect(result.code, result.stderr).toBe(0);
      const spans = readFileSync(spansFile, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { name: string; id: string; parent?: string; attributes: Record<string, unknown> });
      const byName = (name: string) => spans.filter((span) => span.name === name);
      const [root] = byName('invoke_workflow ecosystem');
      const [agent] = byName('invoke_agent task-1');
      expect(root?.attributes).toMatchObject({ 'gen_ai.operation.name': 'invoke_workflow', 'dualloop.stop.reason': 'goal_achieved' });
      expect(agent?.parent).toBe(root?.id);
      expect(byName('chat test-model').map((span) => span.parent)).toEqual([agent?.id, agent?.id]);
      expect(byName('execute_tool local__ping')[0]).toMatchObject({ parent: agent?.id, attributes: { 'gen_ai.tool.name': 'local__ping' } });
    } finally {
      await server.close();
    }
  });

  it('exits with the run’s code, and a warning, when the tracer provider’s shutdown never ends', async () => {
    const server = await startOpenAICompatibleServer();
    try {
      server.enqueue(textAnswer(['nothing to ping']));
      const spansFile = workspace().path('spans.ndjson');
      const manifest = writeManifest(server.baseURL, { servers: { local: { command: process.execPath, args: [DYING_SERVER] } } }, { spansTo: spansFile, exporterShutdown: 'hangs' });

      const result = await runCli(['run', manifest, '--store', 'runs.db'], { cwd: workspace().dir });

      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toContain("dualloop: warning: the tracer provider's shutdown() did not finish within 5000 ms");
      // The batch was flushed before the exporter's shutdown hung.
      expect(readFileSync(spansFile, 'utf8')).toContain('invoke_workflow ecosystem');
    } finally {
      await server.close();
    }
  }, 60_000);

  it('validate checks the blocks without starting a server', async () => {
    const manifest = writeManifest('http://127.0.0.1:9/v1', { servers: { local: { command: '/nonexistent/never-started' } } });
    const result = await runCli(['validate', manifest], { cwd: workspace().dir });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('model ai-sdk local.chat test-model');
    expect(result.stdout).toContain('MCP servers (started by run): local');
  });

  it('fails the run with exit 4 naming a server that does not start, or an unset ${VAR}', async () => {
    const broken = writeManifest('http://127.0.0.1:9/v1', { servers: { local: { command: '/nonexistent/mcp-server' } } });
    const notStarted = await runCli(['run', broken, '--store', 'runs.db'], { cwd: workspace().dir });
    expect(notStarted.code).toBe(4);
    expect(notStarted.stderr).toMatch(/MCP server "local" did not start/);

    const unset = writeManifest('http://127.0.0.1:9/v1', { servers: { web: { url: 'http://127.0.0.1:9/mcp', headers: { Authorization: 'Bearer ${DUALLOOP_TEST_UNSET_TOKEN}' } } } });
    const missing = await runCli(['run', unset, '--store', 'runs.db'], { cwd: workspace().dir, env: { DUALLOOP_TEST_UNSET_TOKEN: undefined } });
    expect(missing.code).toBe(4);
    expect(missing.stderr).toContain('mcp.servers.web.headers.Authorization: the environment variable DUALLOOP_TEST_UNSET_TOKEN is not set');
  });
});
