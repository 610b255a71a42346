import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, memoryStore, sqliteStore } from 'dualloop';
import { createStatelyInspector, type StatelyInspector } from 'dualloop/inspect';
import { startViewer, type Viewer } from 'dualloop/viewer';
import { startCli } from '../cli/cli-process.js';
import { useWorkspace } from '../cli/workspace.js';
import { waitForStderr } from '../viewer/cli-fixtures.js';

/*
 * Issue 15 item 6 (ADR/0101): the viewer and the inspector page answer only requests addressed
 * to an exact allow-list of host:port (DNS rebinding: a hostile name resolving to 127.0.0.1 gets
 * 403), and beyond loopback only requests carrying the access token.
 */

let viewer: Viewer | undefined;
let inspector: StatelyInspector | undefined;
afterEach(async () => {
  await viewer?.close();
  await inspector?.close();
  viewer = undefined;
  inspector = undefined;
});

interface Answer {
  readonly status: number | undefined;
  readonly setCookie: string[] | undefined;
}

function get(port: number, path: string, headers: Record<string, string>, address = '127.0.0.1'): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const call = request({ host: address, port, path, method: 'GET', headers }, (response) => {
      response.resume();
      resolve({ status: response.statusCode, setCookie: response.headers['set-cookie'] });
    });
    call.on('error', reject);
    call.end();
  });
}

describe('the Host allow-list', () => {
  it('the viewer answers localhost, 127.0.0.1 and [::1] with its port, and configured names; nothing else', async () => {
    viewer = await startViewer({ store: memoryStore(), allowedHosts: ['dev.box.local'] });
    const status = async (host: string) => (await get(viewer!.port, '/api/runs', { host })).status;
    for (const host of [`127.evil.example:${viewer.port}`, '127.evil.example', `127.0.0.1.nip.io:${viewer.port}`, `localhost:${viewer.port + 1}`, 'localhost', `127.0.0.2:${viewer.port}`, `attacker.example:${viewer.port}`, `dev.box.local.evil:${viewer.port}`]) {
      expect(await status(host), host).toBe(403);
    }
    for (const host of [`localhost:${viewer.port}`, `127.0.0.1:${viewer.port}`, `[::1]:${viewer.port}`, `dev.box.local:${viewer.port}`, `LOCALHOST:${viewer.port}`]) {
      expect(await status(host), host).toBe(200);
    }
  });

  it('the inspector page refuses a rebinding name too', async () => {
    inspector = await createStatelyInspector({ onProblem: () => undefined });
    const port = Number(new URL(inspector.url).port);
    expect((await get(port, '/', { host: `127.0.0.1:${port}` })).status).toBe(200);
    expect((await get(port, '/', { host: `127.evil.example:${port}` })).status).toBe(403);
    expect((await get(port, '/events', { host: `127.1.2.3.evil:${port}` })).status).toBe(403);
  });
});

describe('a non-loopback bind', () => {
  it('needs a token: startViewer and the inspector page refuse to listen on 0.0.0.0 without one', async () => {
    await expect(startViewer({ store: memoryStore(), host: '0.0.0.0' })).rejects.toBeInstanceOf(ConfigError);
    await expect(startViewer({ store: memoryStore(), host: '0.0.0.0' })).rejects.toThrow(/token: required when host is not a loopback address/);
    await expect(createStatelyInspector({ host: '0.0.0.0', onProblem: () => undefined })).rejects.toThrow(/token/);
  });

  it('answers only requests carrying the token: as a bearer header, in the link, then as the cookie the link sets', async () => {
    const token = 'a-long-enough-access-token-123';
    viewer = await startViewer({ store: memoryStore(), host: '0.0.0.0', token });
    expect(new URL(viewer.url).searchParams.get('token')).toBe(token);
    const host = `localhost:${viewer.port}`;
    expect((await get(viewer.port, '/api/runs', { host })).status).toBe(401);
    expect((await get(viewer.port, '/api/runs?token=wrong-token-wrong-token', { host })).status).toBe(401);
    expect((await get(viewer.port, '/api/runs', { host, authorization: `Bearer ${token}` })).status).toBe(200);
    const opened = await get(viewer.port, `/?token=${token}`, { host });
    expect(opened.status).toBe(200);
    expect(opened.setCookie?.[0]).toMatch(/^dualloop_token=.+; HttpOnly; SameSite=Strict; Path=\//);
    expect((await get(viewer.port, '/api/runs', { host, cookie: opened.setCookie![0]!.split(';')[0]! })).status).toBe(200);
    // The Host check still holds beyond loopback.
    expect((await get(viewer.port, '/api/runs', { host: `attacker.example:${viewer.port}`, authorization: `Bearer ${token}` })).status).toBe(403);
  });
});

describe('dualloop view --host 0.0.0.0', () => {
  const workspace = useWorkspace();

  it('prints a warning and a link with a fresh token; without the token the viewer answers 401', async () => {
    const { dir } = workspace();
    sqliteStore({ path: `${dir}/runs.db` }).close();
    const child = startCli(['view', '--store', 'runs.db', '--host', '0.0.0.0'], { cwd: dir });
    // Listening from the start: the link is printed before the line waited for on stderr.
    const printed = new Promise<string>((resolve) => {
      let text = '';
      child.stdout.on('data', (chunk: string) => {
        text += chunk;
        const match = /viewer: (\S+)/.exec(text);
        if (match !== null) resolve(match[1]!);
      });
    });
    try {
      const stderr = await waitForStderr(child, /serving until Ctrl-C/);
      expect(stderr.input).toMatch(/warning: listening on 0\.0\.0\.0, not loopback/);
      const link = await printed;
      const url = new URL(link);
      const token = url.searchParams.get('token');
      expect(token).toMatch(/^[A-Za-z0-9_-]{32}$/);
      const port = Number(url.port);
      expect((await get(port, '/api/runs', { host: `localhost:${port}` })).status).toBe(401);
      expect((await get(port, '/api/runs', { host: `localhost:${port}`, authorization: `Bearer ${token}` })).status).toBe(200);
    } finally {
      child.kill('SIGINT');
      await child.done;
    }
  }, 60_000);
});
