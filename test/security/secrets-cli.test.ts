import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseNdjson, runCli } from '../cli/cli-process.js';
import { useWorkspace } from '../cli/workspace.js';
import { startOpenAICompatibleServer, type OpenAICompatibleServer } from '../support/openai-compatible-server.js';
import { API_KEY, BEARER_TOKEN, DB_PASSWORD, filesText, firstAnswer, HEADER_VALUE, JWT, leaks, LOOSE_KEY, secondAnswer, TASK } from './secrets-fixture.js';

/*
 * Issue 15 items 1–3 through the command: `run --json` prints every event; `audit --json` and
 * `runs` read the store back. The key comes from `apiKeyEnv`, the password from a variable the
 * manifest's `secrets:` names (as does the value the model echoes as a header). Nothing printed, and no byte of the store, holds a secret.
 */

const TOOLS = fileURLToPath(new URL('./fixtures/secret-tools.mjs', import.meta.url));
const workspace = useWorkspace();
let server: OpenAICompatibleServer;
beforeAll(async () => {
  server = await startOpenAICompatibleServer();
});
afterAll(async () => {
  await server.close();
});

const ENV = {
  LEAK_TEST_KEY: API_KEY,
  LEAK_TEST_DB_PASSWORD: DB_PASSWORD,
  LEAK_TEST_HEADER: HEADER_VALUE,
  LEAK_TEST_JWT: JWT,
  LEAK_TEST_BEARER: BEARER_TOKEN,
  LEAK_TEST_LOOSE_KEY: LOOSE_KEY,
  OPENAI_API_KEY: undefined,
  OPENAI_BASE_URL: undefined,
};

describe('dualloop run --json with secrets', () => {
  it('prints no secret, stores none, and audit --json reads none back', async () => {
    const { dir, write } = workspace();
    server.reset();
    server.enqueue(firstAnswer(), secondAnswer());
    write('manifest.yaml', {
      name: 'leak-check',
      model: { provider: 'openai', name: 'test-model', baseURL: server.baseURL, apiKeyEnv: 'LEAK_TEST_KEY', maxRetries: 0 },
      tools: { module: TOOLS },
      secrets: ['LEAK_TEST_DB_PASSWORD', 'LEAK_TEST_HEADER'],
      tasks: [TASK],
    });

    const run = await runCli(['run', 'manifest.yaml', '--json', '--store', 'runs.db'], { cwd: dir, env: ENV });
    // stderr carries only the stop line (ADR 0096); the secrets are checked below.
    expect(run.stderr).toMatch(/^stop: goal_achieved/);
    expect(run.code).toBe(0);
    const events = parseNdjson(run.stdout);
    expect(events.at(-1)).toMatchObject({ type: 'workflow_end', stop: { reason: 'goal_achieved' } });
    const runId = events[0]!['runId'] as string;
    const audit = await runCli(['audit', runId, '--json', '--store', 'runs.db'], { cwd: dir, env: ENV });
    const runs = await runCli(['runs', '--store', 'runs.db'], { cwd: dir, env: ENV });
    expect(audit.code).toBe(0);

    for (const [name, text] of Object.entries({ 'run --json': run.stdout + run.stderr, 'audit --json': audit.stdout + audit.stderr, runs: runs.stdout + runs.stderr, 'SQLite files': filesText(dir, 'runs.db') })) {
      expect(leaks(text), name).toEqual([]);
    }
    expect(run.stdout).toContain('[redacted]');
  });

  it('refuses a secrets: value too short to redact safely (exit 64, naming the line)', async () => {
    const { dir, write } = workspace();
    write('manifest.yaml', 'name: short\nmodel:\n  provider: openai\n  name: m\n  baseURL: http://127.0.0.1:9/v1\nsecrets:\n  - LEAK_TEST_SHORT\ntasks: [a]\n');
    const result = await runCli(['validate', 'manifest.yaml'], { cwd: dir, env: { ...ENV, LEAK_TEST_SHORT: 'abc' } });
    expect(result.code).toBe(64);
    expect(result.stderr).toMatch(/secrets.*LEAK_TEST_SHORT.*shorter than 4/s);
  });
});
