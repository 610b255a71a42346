/**
 * dualloop's own turn machine (dist/machines/turn.machine.js), provided with the floor's trivial
 * services: the scripted model, the `add` tool and a turn-bound stop, answering with events, and
 * no-op `report` and `saveTurnCheckpoint` actions. No workflow machine, store, events or checks.
 * It prices the machine's shape alone (its states, guards, actions and context) against the
 * floor's: what dualloop's chart costs before anything dualloop does at each state.
 */
import { createActor, fromCallback, toPromise } from 'xstate';
import { distFile } from './dualloop-common.mjs';
import { add, expectFinal, plainModel, TURNS } from '../lib/workload.mjs';

export const meta = { label: "dualloop's turn machine alone, trivial services", packages: ['dualloop', 'xstate'] };

const usage = { inputTokens: 10, outputTokens: 5 };

export async function createSystem(env) {
  const { turnMachine } = await import(new URL('../machines/turn.machine.js', distFile('index.js')).href);
  const machine = turnMachine.provide({
    actors: {
      modelCaller: fromCallback(({ sendBack, receive }) => {
        receive((request) => {
          plainModel(request.messages, env.pacer, env.turns).then((message) =>
            sendBack({ type: 'MODEL_DONE', at: 0, result: { type: 'response', text: message.content, toolCalls: message.toolCalls, usage, costUsd: 0, finishReason: message.toolCalls.length > 0 ? 'tool_calls' : 'stop' } }),
          );
        });
      }),
      toolRunner: fromCallback(({ sendBack, receive }) => {
        receive((request) => {
          const results = request.calls.map((call) => {
            const value = add(call.args);
            return { toolCallId: call.id, name: call.name, args: call.args, result: value, isError: false, terminate: false, content: String(value), executed: true, usedSlot: true };
          });
          Promise.resolve(results).then((done) => sendBack({ type: 'TOOLS_DONE', results: done, at: 0 }));
        });
      }),
      innerStopEvaluator: fromCallback(({ sendBack, receive }) => {
        receive(({ state }) => {
          const last = state.messages[state.messages.length - 1];
          const finished = last.role === 'assistant' && (last.toolCalls?.length ?? 0) === 0;
          const stop = finished ? { reason: 'planner_stopped', detail: 'answered', at: 0 } : state.turn >= TURNS + 5 ? { reason: 'max_turns', detail: 'bound', at: 0 } : undefined;
          Promise.resolve(stop).then((decided) => sendBack({ type: 'STOP_DECIDED', stop: decided, at: 0 }));
        });
      }),
      compactor: fromCallback(() => undefined),
    },
    actions: { report: () => undefined, saveTurnCheckpoint: () => undefined },
    guards: { needsCompaction: () => false },
  });
  const input = () => ({
    runId: 'bench',
    task: { id: 'task-1', index: 0, description: 'sum', bounds: { maxTurns: TURNS + 5, maxToolCalls: TURNS + 5, maxRuntimeMs: 600_000 } },
    settings: { wrapUpOnBound: false, steeringMode: 'one-at-a-time', followUpMode: 'one-at-a-time' },
    budget: { tokensBefore: 0, costBefore: 0 },
    progress: { messages: [{ role: 'user', content: 'sum' }], turns: [], toolCalls: 0, usage: { inputTokens: 0, outputTokens: 0 }, costUsd: 0, elapsedMs: 0, repeat: { key: '', count: 0 }, followUpDue: false },
    queues: { steering: [], followUp: [] },
    modelCallIndex: 0,
    startedAt: 0,
  });
  return {
    async runOnce() {
      const output = await toPromise(createActor(machine, { input: input() }).start());
      expectFinal(output.result.output, 'turn machine alone');
    },
  };
}
