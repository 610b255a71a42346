import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';
import { afterEach, describe, expect, it } from 'vitest';
import { parseNdjson, runCli, startCli } from '../cli/cli-process.js';
import { useWorkspace } from '../cli/workspace.js';
import { waitForStderr } from './cli-fixtures.js';
import { readEvents } from './sse-client.js';
import { statePath } from './state-path.js';

const workspace = useWorkspace();
const servers: WebSocketServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
});

function calculatorManifest(): string {
  const { write } = workspace();
  write('cassette.yaml', [{ toolCalls: [{ name: 'calculator', args: { expression: '2 + 3' } }] }, { text: 'five' }, { text: 'done' }]);
  return write('manifest.yaml', {
    name: 'inspected',
    model: { provider: 'scripted', script: './cassette.yaml' },
    tools: { builtin: ['calculator'] },
    tasks: ['Add 2 and 3.', 'Say done.'],
  });
}

describe('dualloop run --inspect', () => {
  it('--inspect-url sends inspection events of both machines to a WebSocket receiver on loopback; stdout stays NDJSON', async () => {
    const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    servers.push(server);
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    const messages: any[] = [];
    server.on('connection', (socket) => socket.on('message', (data) => messages.push(JSON.parse(String(data)))));
    const url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}`;

    const result = await runCli(['run', calculatorManifest(), '--store', 'runs.db', '--inspect-url', url], { cwd: workspace().dir });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(`Stately inspector: sending inspection events to ${url}`);
    expect(parseNdjson(result.stdout).at(-1)).toMatchObject({ type: 'workflow_end', stop: { reason: 'goal_achieved' } });

    await expect.poll(() => messages.some((message) => message.type === '@xstate.snapshot' && message.snapshot?.output?.stop?.reason === 'goal_achieved')).toBe(true);
    const actors = messages.filter((message) => message.type === '@xstate.actor');
    const workflow = actors.find((actor) => actor.name === 'workflow');
    const tasks = actors.filter((actor) => actor.name === 'task');
    expect(workflow).toBeDefined();
    expect(tasks).toHaveLength(2);
    const values = (sessionId: string) => messages.filter((message) => message.type === '@xstate.snapshot' && message.sessionId === sessionId).map((message) => statePath(message.snapshot.value));
    expect(values(workflow.sessionId)).toEqual(expect.arrayContaining(['TASK_SELECT.GATE', 'TASK_EXECUTE', 'CHECKPOINT', 'NEXT_TASK', 'DONE']));
    expect(values(tasks[0].sessionId)).toEqual(expect.arrayContaining(['PLAN', 'ACT', 'OBSERVE', 'CHECK_STOP', 'DONE']));
  });

  it('--inspect serves a loopback page embedding the hosted inspector, fed with the run’s events, until Ctrl-C', async () => {
    const child = startCli(['run', calculatorManifest(), '--store', 'runs.db', '--inspect'], { cwd: workspace().dir });
    const [, page] = await waitForStderr(child, /Stately inspector: (http:\/\/127\.0\.0\.1:\d+\/) /);
    await waitForStderr(child, /still serving the pages above/);
    const html = await (await fetch(page!)).text();
    expect(html).toContain('src="https://stately.ai/inspect"');
    const received = await readEvents(`${page}events`, (events) => events.filter((event) => event.data.type === '@xstate.actor' && event.data.name === 'task').length === 2);
    expect(received.some((event) => event.data.type === '@xstate.actor' && event.data.name === 'workflow')).toBe(true);
    child.kill('SIGINT');
    const result = await child.done;
    expect(result.code).toBe(0);
    expect(parseNdjson(result.stdout).at(-1)).toMatchObject({ type: 'workflow_end' });
  });

  it('refuses a receiver that is not a WebSocket URL, and --host/--port without anything to serve', async () => {
    const manifest = calculatorManifest();
    const { dir } = workspace();
    const badUrl = await runCli(['run', manifest, '--inspect-url', 'http://127.0.0.1:1'], { cwd: dir });
    expect(badUrl.code).toBe(64);
    expect(badUrl.stderr).toContain('must be a WebSocket URL');
    const port = await runCli(['run', manifest, '--port', '8080'], { cwd: dir });
    expect(port.code).toBe(64);
    expect(port.stderr).toContain("--port is the viewer's: it needs --view");
    const host = await runCli(['run', manifest, '--host', '0.0.0.0', '--inspect-url', 'ws://127.0.0.1:1'], { cwd: dir });
    expect(host.code).toBe(64);
    expect(host.stderr).toContain('--host applies to --view and --inspect only');
  });
});
