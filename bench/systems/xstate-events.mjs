/**
 * The same minimal machine, but with no actor per step: the machine only holds state, and a driver
 * outside it runs each step and answers with an event (MODEL_DONE / TOOLS_DONE).
 */
import { assign, createActor, setup } from 'xstate';
import { add, expectFinal, plainModel, TURNS } from '../lib/workload.mjs';

export const meta = { label: 'same machine, steps answered with events', packages: ['xstate'] };

export async function createSystem(env) {
  const callModel = (messages) => plainModel(messages, env.pacer);
  const runTools = async (calls) => calls.map((call) => ({ role: 'tool', toolCallId: call.id, content: String(add(call.args)) }));

  const machine = setup({}).createMachine({
    context: () => ({ messages: [{ role: 'user', content: 'sum' }], turn: 0 }),
    initial: 'model',
    states: {
      model: {
        entry: assign(({ context }) => ({ turn: context.turn + 1 })),
        on: {
          MODEL_DONE: [
            { guard: ({ event }) => event.message.toolCalls.length > 0, target: 'tools', actions: assign(({ context, event }) => ({ messages: [...context.messages, event.message] })) },
            { target: 'done', actions: assign(({ context, event }) => ({ messages: [...context.messages, event.message] })) },
          ],
        },
      },
      tools: {
        on: {
          TOOLS_DONE: [
            { guard: ({ context }) => context.turn >= TURNS + 5, target: 'done', actions: assign(({ context, event }) => ({ messages: [...context.messages, ...event.results] })) },
            { target: 'model', actions: assign(({ context, event }) => ({ messages: [...context.messages, ...event.results] })) },
          ],
        },
      },
      done: { type: 'final' },
    },
    output: ({ context }) => context.messages[context.messages.length - 1].content,
  });

  return {
    async runOnce() {
      const actor = createActor(machine).start();
      for (;;) {
        const snapshot = actor.getSnapshot();
        if (snapshot.status === 'done') break;
        const { messages } = snapshot.context;
        if (snapshot.value === 'model') actor.send({ type: 'MODEL_DONE', message: await callModel(messages) });
        else actor.send({ type: 'TOOLS_DONE', results: await runTools(messages[messages.length - 1].toolCalls) });
      }
      expectFinal(actor.getSnapshot().output, 'xstate (events)');
    },
  };
}
