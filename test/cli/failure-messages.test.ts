import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAICompatibleServer, status, type OpenAICompatibleServer } from '../support/openai-compatible-server.js';
import { parseNdjson, runCli } from './cli-process.js';
import { useWorkspace } from './workspace.js';

/* Failures say why, where the user looks: stderr of a piped run, validate's problem list. */

const workspace = useWorkspace();
let server: OpenAICompatibleServer;

beforeAll(async () => {
  server = await startOpenAICompatibleServer();
});
afterAll(async () => {
  await server.close();
});

function openaiManifest(extra: Record<string, unknown> = {}) {
  return {
    name: 'on-a-server',
    model: { provider: 'openai', name: 'local-model', baseURL: server.baseURL, apiKeyEnv: 'MY_TEST_KEY', maxRetries: 0, ...extra },
    tasks: ['Say hello.'],
  };
}

const ENV = { MY_TEST_KEY: 'sk-wrong-key-000000000000', OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined };

describe('a piped run that ends error', () => {
  it('prints the stop reason and detail on stderr in one line, and offers no resume after auth_failed', async () => {
    const { write, dir } = workspace();
    const manifest = write('manifest.yaml', openaiManifest());
    server.enqueue(status(401, 'Incorrect API key provided.', { code: 'invalid_api_key' }));

    const result = await runCli(['run', manifest, '--store', 'runs.db', '--run-id', 'no-key'], { cwd: dir, env: ENV });

    expect(result.code).toBe(4);
    expect(parseNdjson(result.stdout).at(-1)).toMatchObject({ type: 'workflow_end', stop: { reason: 'error' } });
    const stopLines = result.stderr.split('\n').filter((line) => line.startsWith('stop: '));
    expect(stopLines).toHaveLength(1);
    expect(stopLines[0]).toMatch(/^stop: error — task "task-1" stopped: model failure: auth_failed: authentication failed with the key from the MY_TEST_KEY environment variable/);
    expect(result.stderr).not.toContain('dualloop resume');
  });

  it('names the variable apiKeyEnv names in auth errors, never OPENAI_API_KEY or the apiKey option', async () => {
    const { write, dir } = workspace();
    const manifest = write('manifest.yaml', openaiManifest());
    server.enqueue(status(401, 'Incorrect API key provided.'));

    const result = await runCli(['run', manifest, '--store', 'runs.db'], { cwd: dir, env: ENV });

    const errors = parseNdjson(result.stdout).filter((event) => event.type === 'error');
    expect(errors).toHaveLength(1);
    for (const text of [errors[0]!.message as string, result.stderr]) {
      expect(text).toContain('MY_TEST_KEY');
      expect(text).not.toContain('OPENAI_API_KEY');
      expect(text).not.toContain('apiKey option');
    }
  });

  it('offers resume when resuming can help (a server error)', async () => {
    const { write, dir } = workspace();
    const manifest = write('manifest.yaml', openaiManifest());
    server.enqueue(status(500, 'The server had an error.'));

    const result = await runCli(['run', manifest, '--store', 'runs.db', '--run-id', 'flaky'], { cwd: dir, env: ENV });

    expect(result.code).toBe(4);
    expect(result.stderr).toMatch(/^stop: error — task "task-1" stopped: model failure: server_error: /m);
    expect(result.stderr).toMatch(/^continue it with: (npx )?dualloop resume flaky --store runs\.db$/m);
  });
});

describe('a run whose server is not there', () => {
  it('says the refusal once and what to check (an openai block with a baseURL on a closed port)', async () => {
    const { write, dir } = workspace();
    const closed = await startOpenAICompatibleServer();
    await closed.close();
    const manifest = write('manifest.yaml', { name: 'no-server', model: { provider: 'openai', name: 'llama3.1', baseURL: closed.baseURL }, tasks: ['Say hello.'] });

    const result = await runCli(['run', manifest, '--store', 'runs.db'], { cwd: dir, env: ENV });

    expect(result.code).toBe(4);
    const stopLine = result.stderr.split('\n').find((line) => line.startsWith('stop: '));
    expect(stopLine).toBe(
      `stop: error — task "task-1" stopped: model failure: connection_failed: could not reach ${closed.baseURL} (not retried: it would fail the same way): ` +
        'nothing listens there (ECONNREFUSED); check that the server is running and that baseURL (or OPENAI_BASE_URL) is its address',
    );
  });
});

describe('manifest problems', () => {
  it('a missing tools.module names the resolved path and adds no knock-on errors for the tools it would define', async () => {
    const { write, dir, path } = workspace();
    write('cassette.yaml', '- text: hi\n');
    const manifest = write('m.yaml', [
      'name: missing-module', // 1
      'model: { provider: scripted, script: ./cassette.yaml }', // 2
      'tools:', // 3
      '  module: ./lib/tools.mjs', // 4
      'tasks: [a]', // 5
      'policy: { deny: [lookup], requireApproval: [refund] }', // 6
    ].join('\n'));

    const result = await runCli(['validate', manifest], { cwd: dir });

    expect(result.code).toBe(64);
    expect(result.stderr).toBe(`m.yaml: 1 problem\n  tools.module (line 4): module not found: ${path('lib/tools.mjs')}\n`);
  });

  it('an unknown manifest key gets a "did you mean", like an unknown flag', async () => {
    const { write, dir } = workspace();
    write('cassette.yaml', '- text: hi\n');
    const manifest = write('m.yaml', [
      'name: typos', // 1
      'model: { provider: scripted, script: ./cassette.yaml }', // 2
      'taks: [a]', // 3
      'bounds: { inner: { maxTurn: 3 } }', // 4
      'tools: { modul: ./tools.mjs }', // 5
      'frobnicate: true', // 6
    ].join('\n'));

    const result = await runCli(['validate', manifest], { cwd: dir });

    expect(result.code).toBe(64);
    expect(result.stderr).toContain('  taks (line 3): unknown field (did you mean "tasks"?)\n');
    expect(result.stderr).toContain('  bounds.inner.maxTurn (line 4): unknown field (did you mean "maxTurns"?)\n');
    expect(result.stderr).toContain('  tools.modul (line 5): unknown field (did you mean "module"?)\n');
    expect(result.stderr).toContain('  frobnicate (line 6): unknown field\n');
  });
});
