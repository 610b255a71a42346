import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';
import { z } from 'zod';
import { afterEach, describe, expect, it } from 'vitest';
import { createKernel, defineTool, memoryStore, type KernelOptions, type Message } from 'dualloop';
import { createStatelyInspector } from 'dualloop/inspect';
import { scriptedModel } from 'dualloop/testing';
import { statePath } from './state-path.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const search = defineTool({ name: 'search', description: 'Searches.', parameters: z.object({ q: z.string() }), execute: ({ q }) => `results for ${q}` });
const askedToWrapUp = (messages: readonly Message[]) => {
  const last = messages.at(-1);
  return last?.role === 'user' && last.source === 'wrap_up';
};

/**
 * One task that compacts before its second turn, searches on every turn and is stopped by
 * `maxTurns: 2`, then wraps up: it passes through COMPACT, OBSERVE and WRAP_UP.
 */
function compactingWrappingKernel(inspect: KernelOptions['inspect']) {
  return createKernel({
    model: scriptedModel(({ index, messages }) => (askedToWrapUp(messages) ? { text: 'best so far' } : { toolCalls: [{ name: 'search', args: { q: `q${index}` } }] })),
    tools: [search],
    store: memoryStore(),
    bounds: { inner: { maxTurns: 2 } },
    wrapUpOnBound: true,
    compactor: {
      shouldCompact: (_messages, { turn }) => turn === 2,
      compact: async (messages) => messages.slice(0, 2),
    },
    inspect,
  });
}

/** The states of the task's turn machine, in order, each once per stay (repeats within a step merged). */
function turnStates(events: readonly { type: string; actorRef?: { id?: string }; snapshot?: { value?: unknown } }[], types: readonly string[]): string[] {
  const states: string[] = [];
  for (const event of events) {
    if (!types.includes(event.type) || event.actorRef?.id !== 'task' || event.snapshot?.value === undefined) continue;
    const state = statePath(event.snapshot.value);
    if (states.at(-1) !== state) states.push(state);
  }
  return states;
}

/** The task's first TURN_INIT is left while its actor starts, before XState reports steps of it. */
const EXPECTED_PASSAGE = ['PLAN', 'ACT', 'OBSERVE', 'CHECK_STOP', 'NEXT_TURN', 'TURN_INIT', 'COMPACT', 'PLAN', 'ACT', 'OBSERVE', 'CHECK_STOP', 'WRAP_UP', 'DONE'];

describe('an inspected run shows every state it passes through', () => {
  it('COMPACT, OBSERVE and WRAP_UP are states of the turn machine, entered in order', async () => {
    const events: { type: string; actorRef?: { id?: string }; snapshot?: { value?: unknown } }[] = [];
    const result = await compactingWrappingKernel((event) => events.push(event as (typeof events)[number])).start(['research']).result;
    expect(result.tasks[0]!.stop.reason).toBe('max_turns');
    expect(result.tasks[0]!.wrapUp?.assistantText).toBe('best so far');

    // Each step XState takes (`@xstate.microstep`) names the state it enters; OBSERVE, NEXT_TURN and
    // TURN_INIT are left within the step that entered them.
    expect(turnStates(events, ['@xstate.microstep'])).toEqual(EXPECTED_PASSAGE);
    // An observer that follows snapshots alone sees them too: each microstep's state is also handed
    // on as a snapshot (ADR 0362), besides where the machine rests (COMPACT waits for the compactor,
    // WRAP_UP for the wrap-up call, like PLAN, ACT and CHECK_STOP for their services).
    expect(turnStates(events, ['@xstate.snapshot'])).toEqual(EXPECTED_PASSAGE);
    // XState's own events reach the observer unchanged, each microstep followed by its snapshot.
    const unfollowed = events.flatMap((event, index) =>
      event.type === '@xstate.microstep' && (events[index + 1]?.type !== '@xstate.snapshot' || events[index + 1]?.snapshot !== event.snapshot) ? [index] : [],
    );
    expect(events.filter((event) => event.type === '@xstate.microstep').length).toBeGreaterThan(EXPECTED_PASSAGE.length);
    expect(unfollowed).toEqual([]);
    // The compactor runs as the machine's child while it compacts.
    expect(events.some((event) => event.type === '@xstate.actor' && event.actorRef?.id === 'compactor')).toBe(true);
  });

  it('the Stately inspector gets every one of those states as a snapshot', async () => {
    const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const messages: any[] = [];
    server.on('connection', (socket) => socket.on('message', (data) => messages.push(JSON.parse(String(data)))));

    const inspector = await createStatelyInspector({ url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}` });
    await compactingWrappingKernel(inspector.inspect).start(['research']).result;
    await inspector.close();
    await expect.poll(() => messages.some((message) => message.type === '@xstate.snapshot' && message.snapshot.status === 'done' && message.snapshot.output?.stop !== undefined)).toBe(true);

    const task = messages.find((message) => message.type === '@xstate.actor' && message.name === 'task');
    const states: string[] = [];
    for (const message of messages) {
      if (message.type !== '@xstate.snapshot' || message.sessionId !== task.sessionId) continue;
      const state = statePath(message.snapshot.value);
      if (states.at(-1) !== state) states.push(state);
    }
    expect(states).toEqual(EXPECTED_PASSAGE);
  });
});
