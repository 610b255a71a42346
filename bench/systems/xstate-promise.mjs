/**
 * A minimal XState v5 machine: two states, a fresh `fromPromise` actor invoked for every model call
 * and every tool batch. Uses the xstate that dualloop depends on (resolved from the root install).
 */
import { assign, createActor, fromPromise, setup, toPromise } from 'xstate';
import { add, expectFinal, plainModel, TURNS } from '../lib/workload.mjs';

export const meta = { label: 'minimal XState machine (fromPromise per step)', packages: ['xstate'] };

export async function createSystem(env) {
  const machine = setup({
    actors: {
      callModel: fromPromise(({ input }) => plainModel(input.messages, env.pacer)),
      runTools: fromPromise(async ({ input }) =>
        input.calls.map((call) => ({ role: 'tool', toolCallId: call.id, content: String(add(call.args)) })),
      ),
    },
  }).createMachine({
    context: () => ({ messages: [{ role: 'user', content: 'sum' }], turn: 0 }),
    initial: 'model',
    states: {
      model: {
        entry: assign(({ context }) => ({ turn: context.turn + 1 })),
        invoke: {
          src: 'callModel',
          input: ({ context }) => ({ messages: context.messages }),
          onDone: [
            {
              guard: ({ event }) => event.output.toolCalls.length > 0,
              target: 'tools',
              actions: assign(({ context, event }) => ({ messages: [...context.messages, event.output] })),
            },
            { target: 'done', actions: assign(({ context, event }) => ({ messages: [...context.messages, event.output] })) },
          ],
        },
      },
      tools: {
        invoke: {
          src: 'runTools',
          input: ({ context }) => ({ calls: context.messages[context.messages.length - 1].toolCalls }),
          onDone: [
            { guard: ({ context }) => context.turn >= TURNS + 5, target: 'done', actions: assign(({ context, event }) => ({ messages: [...context.messages, ...event.output] })) },
            { target: 'model', actions: assign(({ context, event }) => ({ messages: [...context.messages, ...event.output] })) },
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
      expectFinal(await toPromise(actor), 'xstate (fromPromise)');
    },
  };
}
