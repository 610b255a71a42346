import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, createKernel, memoryStore } from 'dualloop';
import { startViewer, type Viewer, type ViewerControl } from 'dualloop/viewer';
import { scriptedModel } from 'dualloop/testing';
import { post } from './post-request.js';

let viewer: Viewer | undefined;
afterEach(async () => {
  await viewer?.close();
  viewer = undefined;
});

async function finishedRun() {
  const store = memoryStore();
  const kernel = createKernel({ model: scriptedModel([{ toolCalls: [{ name: 'nope', args: {} }] }, { text: 'done' }]), store });
  await kernel.start(['work'], { runId: 'source' }).result;
  const control: ViewerControl = { fork: async (runId, at) => (await kernel.fork(runId, { at, runId: 'forked' })).runId };
  return { store, control };
}

describe('the viewer’s fork control', () => {
  it('is off unless the viewer was started with control: the page is told, the route refuses', async () => {
    const { store } = await finishedRun();
    viewer = await startViewer({ store });
    const origin = `http://${viewer.host}:${viewer.port}`;
    expect(((await (await fetch(`${origin}/api/runs`)).json()) as { control: boolean }).control).toBe(false);
    const refused = await post(viewer, '/api/runs/source/fork', '{"at":{"task":1}}', { origin, 'content-type': 'application/json' });
    expect(refused.status).toBe(403);
    expect(refused.body).toContain('control is disabled');
    expect(await store.getRun('forked')).toBeUndefined();
  });

  it('forks for the viewer’s own page only: same origin, JSON, a small body', async () => {
    const { store, control } = await finishedRun();
    viewer = await startViewer({ store, control });
    const origin = `http://${viewer.host}:${viewer.port}`;
    expect(((await (await fetch(`${origin}/api/runs`)).json()) as { control: boolean }).control).toBe(true);
    const body = '{"at":{"task":1,"turn":2}}';
    expect((await post(viewer, '/api/runs/source/fork', body, { 'content-type': 'application/json' })).status).toBe(403);
    expect((await post(viewer, '/api/runs/source/fork', body, { origin: 'http://evil.example', 'content-type': 'application/json' })).status).toBe(403);
    expect((await post(viewer, '/api/runs/source/fork', body, { 'sec-fetch-site': 'cross-site', 'content-type': 'application/json' })).status).toBe(403);
    expect((await post(viewer, '/api/runs/source/fork', body, { origin: 'http://evil.example', 'sec-fetch-site': 'same-origin', 'content-type': 'application/json' })).status).toBe(403);
    expect((await post(viewer, '/api/runs/source/fork', body, { origin, 'content-type': 'text/plain' })).status).toBe(415);
    expect((await post(viewer, '/api/runs/source/fork', `{"at":{"task":1},"pad":"${'x'.repeat(5000)}"}`, { origin, 'content-type': 'application/json' })).status).toBe(413);
    expect((await fetch(`${origin}/api/runs/source/fork`)).status).toBe(405);
    expect(await store.getRun('forked')).toBeUndefined();

    const missing = await post(viewer, '/api/runs/source/fork', '{"at":{"task":1,"turn":7}}', { origin, 'content-type': 'application/json' });
    expect(missing.status).toBe(409);
    expect(JSON.parse(missing.body)).toMatchObject({ code: 'fork_point_not_found', error: expect.stringContaining('task 1 (turns 1–2)') });
    expect((await post(viewer, '/api/runs/source/fork', '{"at":{"task":0}}', { origin, 'content-type': 'application/json' })).status).toBe(400);

    const forked = await post(viewer, '/api/runs/source/fork', body, { origin, 'content-type': 'application/json' });
    expect(forked).toEqual({ status: 200, body: JSON.stringify({ runId: 'forked' }) });
    expect(await store.getRun('forked')).toMatchObject({ forkOf: { runId: 'source', at: { task: 1, turn: 2 } } });
  });

  it('beyond loopback needs the token: no start without it, and a fork request without it is refused', async () => {
    const { store, control } = await finishedRun();
    await expect(startViewer({ store, control, host: '0.0.0.0' })).rejects.toBeInstanceOf(ConfigError);
    const token = 'fork-control-token-0123456789';
    viewer = await startViewer({ store, control, host: '0.0.0.0', token });
    const origin = `http://127.0.0.1:${viewer.port}`;
    const local = { ...viewer, host: '127.0.0.1' };
    const headers = { origin, 'content-type': 'application/json' };
    const body = '{"at":{"task":1}}';
    expect((await post(local, '/api/runs/source/fork', body, headers)).status).toBe(401);
    expect((await post(local, '/api/runs/source/fork', body, { ...headers, authorization: 'Bearer wrong-token-0123456789' })).status).toBe(401);
    expect(await store.getRun('forked')).toBeUndefined();
    const forked = await post(local, '/api/runs/source/fork', body, { ...headers, authorization: `Bearer ${token}` });
    expect(forked).toEqual({ status: 200, body: JSON.stringify({ runId: 'forked' }) });
    expect(await store.getRun('forked')).toMatchObject({ forkOf: { runId: 'source', at: { task: 1 } } });
  });
});
