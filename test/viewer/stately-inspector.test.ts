import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';
import { afterEach, describe, expect, it } from 'vitest';
import { createKernel, defineTool, memoryStore } from 'dualloop';
import { createStatelyInspector } from 'dualloop/inspect';
import { scriptedModel } from 'dualloop/testing';
import { z } from 'zod';
import { branchGate, turnOf } from '../support/graph-fixtures.js';
import { readEvents } from './sse-client.js';
import { statePath } from './state-path.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A WebSocket receiver on loopback that keeps every message, as JSON. */
async function receiver() {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const messages: any[] = [];
  server.on('connection', (socket) => socket.on('message', (data) => messages.push(JSON.parse(String(data)))));
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}`, messages };
}

const echo = defineTool({ name: 'echo', description: 'Echoes.', parameters: z.object({ text: z.string() }), execute: ({ text }) => text });

function twoTaskKernel(inspect: Parameters<typeof createKernel>[0]['inspect']) {
  return createKernel({
    model: scriptedModel([{ toolCalls: [{ name: 'echo', args: { text: 'hi' } }] }, { text: 'first done' }, { text: 'second done' }]),
    tools: [echo],
    store: memoryStore(),
    inspect,
  });
}

describe('createStatelyInspector', () => {
  it('sends the workflow machine and each task’s turn machine, with their states, to a WebSocket receiver', async () => {
    const { url, messages } = await receiver();
    const inspector = await createStatelyInspector({ url });
    const run = twoTaskKernel(inspector.inspect).start(['first', 'second']);
    await run.result;
    await inspector.close();
    // close() hands everything to the socket; the receiver reads it a moment later.
    await expect.poll(() => messages.some((message) => message.type === '@xstate.snapshot' && message.snapshot.value === 'DONE' && message.snapshot.status === 'done' && message.snapshot.output?.stop !== undefined)).toBe(true);

    const actors = messages.filter((message) => message.type === '@xstate.actor');
    const workflow = actors.find((actor) => actor.name === 'workflow');
    const tasks = actors.filter((actor) => actor.name === 'task');
    expect(workflow, 'the root actor is registered').toBeDefined();
    expect(tasks, 'one turn machine per task').toHaveLength(2);
    expect(JSON.parse(tasks[0].definition)).toMatchObject({ id: 'turn', initial: 'TURN_INIT' });
    expect(JSON.parse(workflow.definition)).toMatchObject({ id: 'workflow', initial: 'INIT' });
    for (const task of tasks) expect(task.parentId).toBe(workflow.sessionId);

    const statesOf = (sessionId: string) =>
      new Set(messages.filter((message) => message.type === '@xstate.snapshot' && message.sessionId === sessionId).map((message) => statePath(message.snapshot.value)));
    expect([...statesOf(workflow.sessionId)]).toEqual(expect.arrayContaining(['TASK_SELECT.PICK', 'TASK_SELECT.GATE', 'TASK_EXECUTE', 'CHECKPOINT', 'NEXT_TASK', 'DONE']));
    // States left within the step that entered them (OBSERVE, NEXT_TURN, TURN_INIT) arrive as microstep snapshots (ADR/0232).
    expect([...statesOf(tasks[0].sessionId)]).toEqual(expect.arrayContaining(['PLAN', 'ACT', 'OBSERVE', 'CHECK_STOP', 'NEXT_TURN', 'TURN_INIT', 'DONE']));
    expect([...statesOf(tasks[1].sessionId)]).toEqual(expect.arrayContaining(['PLAN', 'CHECK_STOP', 'DONE']));
    expect(messages.some((message) => message.type === '@xstate.event' && message.event.type === 'MODEL_DONE')).toBe(true);
  });

  it('shows each branch of a graph as its own turn machine, `task.<taskId>`, the branches in ACT at once', async () => {
    const { url, messages } = await receiver();
    const inspector = await createStatelyInspector({ url });
    // Each branch's tool returns only once both branches called it: they run at once.
    const meet = branchGate('meet');
    void meet.allIn.then(meet.open);
    const model = scriptedModel((call) => (turnOf(call) === 0 ? { toolCalls: [{ name: 'meet' }] } : { text: 'done' }));
    const kernel = createKernel({ model, tools: [meet.tool], inspect: inspector.inspect, bounds: { outer: { maxParallelTasks: 2 } } });
    await kernel.start([{ id: 'left', description: 'left', dependsOn: [] }, { id: 'right', description: 'right', dependsOn: [] }]).result;
    await inspector.close();
    await expect.poll(() => messages.some((message) => message.type === '@xstate.snapshot' && message.snapshot.value === 'DONE' && message.snapshot.output?.stop !== undefined)).toBe(true);

    const actors = messages.filter((message) => message.type === '@xstate.actor');
    const workflow = actors.find((actor) => actor.name === 'workflow');
    const branches = actors.filter((actor) => actor.name.startsWith('task.'));
    expect(branches.map((actor) => actor.name).sort()).toEqual(['task.left', 'task.right']);
    for (const branch of branches) {
      expect(branch.parentId).toBe(workflow.sessionId);
      expect(JSON.parse(branch.definition)).toMatchObject({ id: 'turn', initial: 'TURN_INIT' });
    }
    const [left, right] = ['task.left', 'task.right'].map((name) => branches.find((actor) => actor.name === name).sessionId);
    const snapshots = messages.filter((message) => message.type === '@xstate.snapshot');
    const firstIndex = (sessionId: string, state: string) => snapshots.findIndex((message) => message.sessionId === sessionId && statePath(message.snapshot.value) === state);
    // Both were in ACT before either was done.
    expect(Math.max(firstIndex(left, 'ACT'), firstIndex(right, 'ACT'))).toBeLessThan(Math.min(firstIndex(left, 'DONE'), firstIndex(right, 'DONE')));
    expect(firstIndex(left, 'ACT')).toBeGreaterThanOrEqual(0);
  });

  it('queues events until the receiver is up and delivers them on close', async () => {
    const { url, messages } = await receiver();
    const inspector = await createStatelyInspector({ url });
    const run = twoTaskKernel(inspector.inspect).start(['first', 'second']);
    await run.result;
    // The run is over before anything may have been sent; close() delivers what is queued.
    await inspector.close();
    await expect.poll(() => messages.filter((message) => message.type === '@xstate.snapshot').length).toBeGreaterThan(10);
  });

  it('reports an unreachable receiver once and never fails the run', async () => {
    const problems: string[] = [];
    const inspector = await createStatelyInspector({ url: 'ws://127.0.0.1:9', onProblem: (message) => problems.push(message) });
    const result = await twoTaskKernel(inspector.inspect).start(['first', 'second']).result;
    await inspector.close(200);
    expect(result.stop.reason).toBe('goal_achieved');
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain('cannot send to ws://127.0.0.1:9');
  });

  it('without a receiver, serves a loopback page that embeds the Stately inspector and streams the events to it', async () => {
    const inspector = await createStatelyInspector();
    cleanups.push(() => inspector.close());
    expect(inspector.mode).toBe('page');
    expect(inspector.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    const page = await (await fetch(inspector.url)).text();
    expect(page).toContain('<iframe id="inspector" src="https://stately.ai/inspect"');
    expect(page).toContain("'@statelyai.connected'");

    await twoTaskKernel(inspector.inspect).start(['first', 'second']).result;
    // A page opened after the run still gets every actor registration.
    const received = await readEvents(`${inspector.url}events`, (events) => events.filter((event) => event.data.type === '@xstate.actor' && event.data.name === 'task').length === 2);
    expect(received.some((event) => event.data.type === '@xstate.actor' && event.data.name === 'workflow')).toBe(true);
    expect(received.some((event) => event.data.type === '@xstate.snapshot' && event.data.snapshot.value === 'DONE')).toBe(true);
  });

  it('refuses requests addressed to another host name (DNS rebinding)', async () => {
    const inspector = await createStatelyInspector();
    cleanups.push(() => inspector.close());
    const { request } = await import('node:http');
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const call = request(inspector.url, { headers: { host: 'attacker.example' } }, (response) => {
        response.resume();
        resolve(response.statusCode);
      });
      call.on('error', reject);
      call.end();
    });
    expect(status).toBe(403);
  });
});
