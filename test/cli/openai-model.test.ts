import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAICompatibleServer, textAnswer, toolCallAnswer, type OpenAICompatibleServer } from '../support/openai-compatible-server.js';
import { parseNdjson, runCli } from './cli-process.js';
import { useWorkspace } from './workspace.js';

/*
 * The same manifest format on an OpenAI-compatible server instead of a cassette: only the model
 * block changes. The server is a local peer on 127.0.0.1 speaking Chat Completions with SSE.
 */

const workspace = useWorkspace();
const KEY = 'sk-test-SECRET-123456';
let server: OpenAICompatibleServer;

beforeAll(async () => {
  server = await startOpenAICompatibleServer();
});
afterAll(async () => {
  await server.close();
});

describe('a manifest with an openai model block', () => {
  it('runs against the server, with the key read from the variable apiKeyEnv names, and priced by the manifest', async () => {
    const { write, dir } = workspace();
    const manifest = write('manifest.yaml', {
      name: 'on-a-server',
      model: { provider: 'openai', name: 'local-model', baseURL: server.baseURL, apiKeyEnv: 'DUALLOOP_TEST_KEY', pricing: { inputPerMillion: 1, outputPerMillion: 2 } },
      tools: { builtin: ['calculator'] },
      tasks: ['What is 19 * 23?'],
    });
    server.enqueue(
      toolCallAnswer([{ id: 'call_a', name: 'calculator', fragments: ['{"expression":', '"19 * 23"}'] }], { usage: [100, 20] }),
      textAnswer(['19 × 23 = ', '437.'], { usage: [150, 10] }),
    );

    const result = await runCli(['run', manifest, '--store', 'runs.db', '--run-id', 'served-1'], {
      cwd: dir,
      env: { DUALLOOP_TEST_KEY: KEY, OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined },
    });
    expect(result.stderr).not.toContain('problem');
    expect(result.code).toBe(0);
    expect(server.requests).toHaveLength(2);
    expect(server.requests[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(server.requests[0]!.body.model).toBe('local-model');
    expect(server.requests[0]!.body.tools.map((tool: { function: { name: string } }) => tool.function.name)).toEqual(['calculator']);

    const events = parseNdjson(result.stdout);
    expect(events.find((event) => event.type === 'tool_execution_end')?.result).toEqual({ expression: '19 * 23', result: 437 });
    expect(events.at(-1)).toMatchObject({ type: 'workflow_end', stop: { reason: 'goal_achieved' }, metrics: { inputTokens: 250, outputTokens: 30 } });
    expect(events.at(-1)!.metrics.costUsd).toBeCloseTo((250 * 1 + 30 * 2) / 1_000_000, 12);

    const audit = await runCli(['audit', 'served-1', '--store', 'runs.db', '--json'], { cwd: dir });
    for (const text of [result.stdout, result.stderr, audit.stdout]) expect(text).not.toContain('SECRET');
  });

  it('refuses to run when the variable apiKeyEnv names is not set (exit 64, with the line)', async () => {
    const { write, dir } = workspace();
    write('manifest.yaml', 'name: needs-a-key\nmodel:\n  provider: openai\n  name: gpt-4.1-mini\n  apiKeyEnv: DUALLOOP_UNSET_KEY\ntasks: [a]\n');
    const result = await runCli(['run', 'manifest.yaml'], { cwd: dir, env: { DUALLOOP_UNSET_KEY: undefined } });
    expect(result.code).toBe(64);
    expect(result.stderr).toBe('manifest.yaml: 1 problem\n  model.apiKeyEnv (line 5): the environment variable DUALLOOP_UNSET_KEY is not set\n');
    expect(server.requests).toHaveLength(2);
  });

  it('without apiKeyEnv, validate and run both refuse a block that has no key and no base URL (exit 64, no store)', async () => {
    const { write, dir, path } = workspace();
    write('manifest.yaml', 'name: default-key\nmodel:\n  provider: openai\n  name: gpt-4.1-mini\ntasks: [a]\n');
    const noKey = { OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined };
    const expected = 'manifest.yaml: 1 problem\n  model (line 2): no API key: the environment variable OPENAI_API_KEY is not set (set it, or name the variable that holds the key with apiKeyEnv; a local server that needs no key takes baseURL)\n';
    for (const command of ['validate', 'run']) {
      const result = await runCli([command, 'manifest.yaml'], { cwd: dir, env: noKey });
      expect({ command, code: result.code, stdout: result.stdout, stderr: result.stderr }).toEqual({ command, code: 64, stdout: '', stderr: expected });
    }
    expect(existsSync(path('.dualloop'))).toBe(false);
    // A server that needs no key: OPENAI_BASE_URL is a base URL too, as for openaiModel.
    const local = await runCli(['validate', 'manifest.yaml'], { cwd: dir, env: { ...noKey, OPENAI_BASE_URL: server.baseURL } });
    expect(local).toMatchObject({ code: 0, stderr: '' });
  });
});
