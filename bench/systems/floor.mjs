/**
 * The floor: the cheapest honest version of dualloop's two explicit machines, written
 * with XState v5 alone and no dualloop code. The same states and the same invoked actors:
 *
 *   outer  INIT → TASK_SELECT (PICK: taskSource, GATE: policyGate) → TASK_EXECUTE (the inner
 *          machine) → CHECKPOINT (checkpointer) → NEXT_TASK (outerStopEvaluator) → TASK_SELECT | DONE
 *   inner  TURN_INIT → PLAN → ACT → OBSERVE → CHECK_STOP → NEXT_TURN → TURN_INIT | DONE, with the
 *          model caller, tool runner and stop evaluator as long-lived callback actors invoked once
 *          per task and answering with events, and a turn checkpoint kept in memory at NEXT_TURN.
 *
 * What it leaves out is what dualloop adds on top of the machines: events to a consumer, option
 * validation, bounds other than turns, budgets, policy, loop detection, recorded tool results.
 * Uses the xstate that dualloop depends on (resolved from the root install).
 */
import { assign, createActor, fromCallback, fromPromise, sendTo, setup, toPromise } from 'xstate';
import { add, expectFinal, plainModel, TURNS } from '../lib/workload.mjs';

export const meta = { label: 'the floor: bare XState v5 machine pair', packages: ['xstate'] };

const MAX_TURNS = TURNS + 5;

function createMachines(env) {
  const turnMachine = setup({
    actors: {
      modelCaller: fromCallback(({ sendBack, receive }) => {
        receive((request) => {
          plainModel(request.messages, env.pacer, env.turns).then((message) => sendBack({ type: 'MODEL_DONE', message }));
        });
      }),
      toolRunner: fromCallback(({ sendBack, receive }) => {
        receive((request) => {
          Promise.resolve(request.calls.map((call) => ({ role: 'tool', toolCallId: call.id, content: String(add(call.args)) }))).then((results) =>
            sendBack({ type: 'TOOLS_DONE', results }),
          );
        });
      }),
      innerStopEvaluator: fromCallback(({ sendBack, receive }) => {
        receive((request) => {
          const stop = request.finished ? 'planner_stopped' : request.turn >= MAX_TURNS ? 'max_turns' : undefined;
          Promise.resolve(stop).then((reason) => sendBack({ type: 'STOP_DECIDED', reason }));
        });
      }),
    },
  }).createMachine({
    context: ({ input }) => ({ messages: input.messages, turn: 0, toolCalls: 0, stop: undefined, checkpoints: input.checkpoints }),
    invoke: [
      { id: 'model', src: 'modelCaller' },
      { id: 'tools', src: 'toolRunner' },
      { id: 'stop', src: 'innerStopEvaluator' },
    ],
    initial: 'TURN_INIT',
    states: {
      TURN_INIT: { entry: assign(({ context }) => ({ turn: context.turn + 1 })), always: 'PLAN' },
      PLAN: {
        entry: sendTo('model', ({ context }) => ({ type: 'model.call', messages: context.messages })),
        on: {
          MODEL_DONE: [
            { guard: ({ event }) => event.message.toolCalls.length > 0, target: 'ACT', actions: assign(({ context, event }) => ({ messages: [...context.messages, event.message] })) },
            { target: 'CHECK_STOP', actions: assign(({ context, event }) => ({ messages: [...context.messages, event.message] })) },
          ],
        },
      },
      ACT: {
        entry: sendTo('tools', ({ context }) => ({ type: 'tools.run', calls: context.messages[context.messages.length - 1].toolCalls })),
        on: {
          TOOLS_DONE: {
            target: 'OBSERVE',
            actions: assign(({ context, event }) => ({ messages: [...context.messages, ...event.results], toolCalls: context.toolCalls + event.results.length })),
          },
        },
      },
      OBSERVE: { always: 'CHECK_STOP' },
      CHECK_STOP: {
        entry: sendTo('stop', ({ context }) => ({
          type: 'stop.evaluate',
          turn: context.turn,
          finished: context.messages[context.messages.length - 1].role === 'assistant',
        })),
        on: {
          STOP_DECIDED: [
            { guard: ({ event }) => event.reason !== undefined, target: 'DONE', actions: assign(({ event }) => ({ stop: event.reason })) },
            { target: 'NEXT_TURN' },
          ],
        },
      },
      NEXT_TURN: {
        entry: ({ context }) => context.checkpoints.push({ turn: context.turn, messages: context.messages }),
        always: 'TURN_INIT',
      },
      DONE: { type: 'final' },
    },
    output: ({ context }) => ({ stop: context.stop, output: context.messages[context.messages.length - 1].content, turns: context.turn }),
  });

  return setup({
    actors: {
      taskSource: fromPromise(async ({ input }) => (input.done < input.tasks.length ? { task: input.tasks[input.done] } : { task: undefined })),
      policyGate: fromPromise(async () => 'allow'),
      taskLoop: turnMachine,
      checkpointer: fromPromise(async ({ input }) => {
        input.checkpoints.push({ results: input.results.length });
      }),
      outerStopEvaluator: fromPromise(async ({ input }) => (input.results.at(-1).stop === 'planner_stopped' ? undefined : input.results.at(-1).stop)),
    },
  }).createMachine({
    context: ({ input }) => ({ tasks: input.tasks, results: [], active: undefined, stop: undefined, checkpoints: [] }),
    initial: 'INIT',
    states: {
      INIT: { always: 'TASK_SELECT' },
      TASK_SELECT: {
        initial: 'PICK',
        states: {
          PICK: {
            invoke: {
              src: 'taskSource',
              input: ({ context }) => ({ tasks: context.tasks, done: context.results.length }),
              onDone: [
                { guard: ({ event }) => event.output.task === undefined, target: '#floor.DONE', actions: assign({ stop: 'goal_achieved' }) },
                { target: 'GATE', actions: assign(({ event }) => ({ active: event.output.task })) },
              ],
            },
          },
          GATE: { invoke: { src: 'policyGate', onDone: '#floor.TASK_EXECUTE' } },
        },
      },
      TASK_EXECUTE: {
        invoke: {
          id: 'task',
          src: 'taskLoop',
          input: ({ context }) => ({ messages: [{ role: 'user', content: context.active }], checkpoints: context.checkpoints }),
          onDone: { target: 'CHECKPOINT', actions: assign(({ context, event }) => ({ results: [...context.results, event.output], active: undefined })) },
        },
      },
      CHECKPOINT: {
        invoke: { src: 'checkpointer', input: ({ context }) => ({ results: context.results, checkpoints: context.checkpoints }), onDone: 'NEXT_TASK' },
      },
      NEXT_TASK: {
        invoke: {
          src: 'outerStopEvaluator',
          input: ({ context }) => ({ results: context.results }),
          onDone: [{ guard: ({ event }) => event.output !== undefined, target: 'DONE', actions: assign(({ event }) => ({ stop: event.output })) }, { target: 'TASK_SELECT' }],
        },
      },
      DONE: { type: 'final' },
    },
    output: ({ context }) => ({ stop: context.stop, tasks: context.results }),
    id: 'floor',
  });
}

export async function createSystem(env) {
  const workflowMachine = createMachines(env);
  return {
    async runOnce() {
      const actor = createActor(workflowMachine, { input: { tasks: ['sum'] } }).start();
      const result = await toPromise(actor);
      expectFinal(result.tasks[0]?.output, 'the floor');
    },
  };
}
