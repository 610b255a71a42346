import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createKernel, memoryStore } from 'dualloop';
import { startViewer, type Viewer } from 'dualloop/viewer';
import { scriptedModel } from 'dualloop/testing';
import { pausePoints } from './pause-points.js';
import { readEvents } from './sse-client.js';

let viewer: Viewer | undefined;
afterEach(async () => {
  await viewer?.close();
  viewer = undefined;
});

function origin(current: Viewer): string {
  return `http://${current.host}:${current.port}`;
}

async function finishedRun() {
  const store = memoryStore();
  const kernel = createKernel({ model: scriptedModel([{ text: 'one' }, { text: 'two' }]), store });
  const result = await kernel.start(['first', 'second'], { runId: 'done-run' }).result;
  return { store, result };
}

describe('startViewer', () => {
  it('serves the page on loopback with a same-origin-only Content-Security-Policy', async () => {
    const { store } = await finishedRun();
    viewer = await startViewer({ store, runId: 'done-run' });
    expect(viewer.url).toBe(`http://127.0.0.1:${viewer.port}/?run=done-run`);
    const page = await fetch(viewer.url);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(page.headers.get('content-security-policy')).toContain("connect-src 'self'");
    const html = await page.text();
    expect(html).toContain('<script type="module" src="/assets/viewer.js"></script>');
    expect(html).not.toMatch(/https?:\/\//);
    expect((await fetch(`${origin(viewer)}/assets/viewer.js`)).headers.get('content-type')).toContain('javascript');
    expect((await fetch(`${origin(viewer)}/nope`)).status).toBe(404);
  });

  it('gives both machines drawn from their definitions and the store’s runs', async () => {
    const { store } = await finishedRun();
    viewer = await startViewer({ store });
    const machines = (await (await fetch(`${origin(viewer)}/api/machines`)).json()) as any;
    expect(machines.workflow.nodes.map((node: any) => node.path)).toEqual(['INIT', 'TASK_SELECT', 'TASK_SELECT.PICK', 'TASK_SELECT.GATE', 'TASK_SELECT.NEXT_PICKED', 'TASK_EXECUTE', 'CHECKPOINT', 'NEXT_TASK', 'DONE']);
    expect(machines.turn.nodes.map((node: any) => node.key)).toEqual(['TURN_INIT', 'COMPACT', 'PLAN', 'ACT', 'OBSERVE', 'CHECK_STOP', 'NEXT_TURN', 'WRAP_UP', 'DONE']);
    const runs = (await (await fetch(`${origin(viewer)}/api/runs`)).json()) as any;
    expect(runs.runs.map((run: any) => run.runId)).toEqual(['done-run']);
    expect(runs.selected).toBe('done-run');
  });

  it('streams a finished run: its info, every event, then the stop tree', async () => {
    const { store, result } = await finishedRun();
    const bounds = { inner: { maxTurns: 3, maxToolCalls: 5, maxRuntimeMs: 1_000 }, outer: { maxWorkflowSteps: 4, maxSessionRuntimeMs: 9_000, maxReplans: 3 } };
    viewer = await startViewer({ store, bounds: () => bounds });
    const received = await readEvents(`${origin(viewer)}/api/runs/done-run/stream`, (events) => events.some((event) => event.event === 'audit'));
    expect(received[0]).toMatchObject({ event: 'run', data: { runId: 'done-run', bounds, tasks: [{ description: 'first' }, { description: 'second' }] } });
    const events = received.filter((event) => event.event === 'events').flatMap((event) => event.data);
    expect(events).toEqual(await store.readEvents('done-run'));
    expect(received.at(-1)).toMatchObject({ event: 'audit', data: { status: 'finished', workflow: { stop: { reason: result.stop.reason } } } });
  });

  it('resumes after Last-Event-ID, as a reconnecting page does', async () => {
    const { store } = await finishedRun();
    viewer = await startViewer({ store });
    const all = await store.readEvents('done-run');
    const received = await readEvents(`${origin(viewer)}/api/runs/done-run/stream`, (events) => events.some((event) => event.event === 'audit'), { headers: { 'last-event-id': String(all[4]!.seq) } });
    const events = received.filter((event) => event.event === 'events').flatMap((event) => event.data);
    expect(events.map((event: any) => event.seq)).toEqual(all.slice(5).map((event) => event.seq));
  });

  it('tails a running run: events arrive while it runs, the stop tree when it ends', async () => {
    const pauses = pausePoints();
    const store = memoryStore();
    const model = scriptedModel([{ text: 'done' }]);
    const kernel = createKernel({
      model: { provider: 'test', modelId: 'paused', call: async (request) => (await pauses.enter('model'), model.call(request)) },
      store,
    });
    const run = kernel.start(['only'], { runId: 'live-run' });
    viewer = await startViewer({ store, pollMs: 20 });
    await pauses.next();
    const received = await readEvents(`${origin(viewer)}/api/runs/live-run/stream`, (events) => {
      const types = events.filter((event) => event.event === 'events').flatMap((event) => event.data.map((kernelEvent: any) => kernelEvent.type));
      if (types.includes('message_start') && !types.includes('message_end')) pauses.release();
      return events.some((event) => event.event === 'audit' && event.data.status === 'finished');
    });
    await run.result;
    const events = received.filter((event) => event.event === 'events');
    expect(events.length, 'events came in more than one message: some while the run ran').toBeGreaterThan(1);
    expect(events.flatMap((event) => event.data).at(-1)).toMatchObject({ type: 'workflow_end', stop: { reason: 'goal_achieved' } });
    expect(received.filter((event) => event.event === 'audit').map((event) => event.data.status)).toEqual(['incomplete', 'finished']);
  });

  it('says when the store has no such run', async () => {
    viewer = await startViewer({ store: memoryStore() });
    const received = await readEvents(`${origin(viewer)}/api/runs/nowhere/stream`, () => false);
    expect(received).toEqual([{ event: 'missing', id: undefined, data: { runId: 'nowhere' } }]);
  });

  it('refuses requests addressed to another host name (DNS rebinding) and other methods', async () => {
    viewer = await startViewer({ store: memoryStore() });
    const status = (method: string, host: string) =>
      new Promise<number | undefined>((resolve, reject) => {
        const call = request(`${origin(viewer!)}/api/runs`, { method, headers: { host } }, (response) => {
          response.resume();
          resolve(response.statusCode);
        });
        call.on('error', reject);
        call.end();
      });
    expect(await status('GET', 'attacker.example:80')).toBe(403);
    expect(await status('GET', `localhost:${viewer.port}`)).toBe(200);
    expect(await status('POST', `127.0.0.1:${viewer.port}`)).toBe(405);
  });

  it('fails clearly when the page is not built', async () => {
    await expect(startViewer({ store: memoryStore(), assetsDirectory: '/nonexistent' })).rejects.toThrow(/not built.*npm run build/);
  });
});
