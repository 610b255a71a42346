import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { createKernel, mcpTools, memoryStore } from 'dualloop';
import { scriptedModel } from 'dualloop/testing';
import { isRunning, killLeftovers, serverPids, until } from '../support/server-pids.js';

/*
 * When an MCP server runs (ADR 0143): each run starts its servers at its first need — before its
 * first model call, which already lists their tools — and stops them before its result is given.
 * The test server writes its pid to a file when it starts, so the test watches the process itself.
 */

const dying = fileURLToPath(new URL('../support/mcp-dying-server.mjs', import.meta.url));
const pidFiles: string[] = [];

function pidFile(): string {
  const file = join(mkdtempSync(join(tmpdir(), 'dualloop-mcp-pids-')), 'pids');
  pidFiles.push(file);
  return file;
}

afterEach(() => {
  for (const file of pidFiles.splice(0)) killLeftovers(file);
});

describe('MCP servers live as long as the run that needs them', () => {
  it('starts nothing before a run needs the tools, and stops the server before the run’s result', async () => {
    const pids = pidFile();
    const source = mcpTools({ servers: { local: { command: process.execPath, args: [dying, '--pid-file', pids] } } });
    let startedBeforeFirstCall: number[] = [];
    const model = scriptedModel(({ index }) => {
      if (index === 0) startedBeforeFirstCall = serverPids(pids);
      return index === 0 ? { toolCalls: [{ name: 'local__ping', args: {}, id: 'ping' }] } : { text: 'done' };
    });
    const kernel = createKernel({
      model,
      tools: [source],
      store: memoryStore(),
      // The first task is refused before any model call: that run never needs the tools.
      policy: { checkTask: ({ task }) => (task.description === 'refused' ? { decision: 'deny', reason: 'not this one' } : { decision: 'allow' }) },
    });
    expect(serverPids(pids)).toEqual([]);

    const refused = await kernel.start(['refused']).result;
    expect(refused.stop.reason).toBe('policy_denied');
    expect(serverPids(pids)).toEqual([]);

    const run = kernel.start(['Ping the server']);
    const result = await run.result;

    expect(result.stop.reason).toBe('goal_achieved');
    const [pid] = serverPids(pids);
    expect(startedBeforeFirstCall).toEqual([pid]);
    expect(model.calls[0]?.tools.map((tool) => tool.name)).toEqual(['local__ping', 'local__die']);
    expect(result.tasks[0]?.turns[0]?.toolCalls[0]).toMatchObject({ isError: false, result: `pong from ${pid}` });
    expect(isRunning(pid!)).toBe(false);
  });

  it('gives each run its own server, stopped when that run ends, a parked run included', async () => {
    const pids = pidFile();
    const source = mcpTools({ servers: { local: { command: process.execPath, args: [dying, '--pid-file', pids] } } });
    const store = memoryStore();
    const kernel = createKernel({
      model: scriptedModel([{ toolCalls: [{ name: 'local__ping', args: {}, id: 'ping' }] }, { text: 'done' }]),
      tools: [source],
      store,
      policy: { checkToolCall: () => ({ decision: 'require_approval', reason: 'ask first' }) },
    });

    const parked = await kernel.start(['Ping'], { runId: 'parked' }).result;
    expect(parked.stop.reason).toBe('awaiting_approval');
    const [first] = serverPids(pids);
    expect(isRunning(first!)).toBe(false);

    const resumed = await (await kernel.resume('parked', { approvals: { ping: 'approve' } })).result;
    expect(resumed.stop.reason).toBe('goal_achieved');
    const [, second] = serverPids(pids);
    expect(second).not.toBe(first);
    expect(resumed.tasks[0]?.turns[0]?.toolCalls[0]).toMatchObject({ result: `pong from ${second}` });
    expect(isRunning(second!)).toBe(false);
  });

  it('stops a server still starting when the run is cancelled', async () => {
    const pids = pidFile();
    // Writes its pid, then never answers the handshake.
    const silent = ['-e', 'require("node:fs").appendFileSync(process.argv[1], process.pid + "\\n"); setInterval(() => {}, 60000)', pids];
    const source = mcpTools({ servers: { silent: { command: process.execPath, args: silent } }, startTimeoutMs: 600_000 });
    const model = scriptedModel([{ text: 'never asked' }]);
    const run = createKernel({ model, tools: [source] }).start(['Wait for the server']);
    await until(() => serverPids(pids).length === 1);
    run.abort('operator');

    const result = await run.result;

    expect(result.stop.reason).toBe('context_canceled');
    expect(model.calls).toHaveLength(0);
    expect(isRunning(serverPids(pids)[0]!)).toBe(false);
  });
});
