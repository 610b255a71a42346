/**
 * OpenAI Agents SDK: `Runner.run` (tracing disabled) with a scripted `Model` answering
 * Responses-API items, the tool defined with `tool()` and a zod schema, `maxTurns: 15`.
 */
import { Agent, Runner, tool, Usage } from '@openai/agents-core';
import { z } from 'zod';
import { add, ADD_DESCRIPTION, expectFinal, scriptStep, TURNS } from '../lib/workload.mjs';

export const meta = { label: 'OpenAI Agents SDK (Runner)', packages: ['@openai/agents-core'] };

export async function createSystem(env) {
  const model = {
    async getResponse(request) {
      const input = Array.isArray(request.input) ? request.input : [];
      const index = input.reduce((count, item) => (item.type === 'function_call_result' ? count + 1 : count), 0);
      if (env.pacer.wait !== undefined) await env.pacer.wait(index);
      const step = scriptStep(index);
      const usage = new Usage({ requests: 1, inputTokens: 10, outputTokens: 5, totalTokens: 15 });
      const output =
        step.kind === 'tool'
          ? [{ type: 'function_call', callId: step.id, name: 'add', arguments: JSON.stringify(step.args), status: 'completed' }]
          : [{ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: step.text }] }];
      return { usage, output };
    },
    // eslint-disable-next-line require-yield
    async *getStreamedResponse() {
      throw new Error('not used: the benchmark runs the non-streamed Runner');
    },
  };
  const addTool = tool({
    name: 'add',
    description: ADD_DESCRIPTION,
    parameters: z.object({ a: z.number(), b: z.number() }),
    execute: async (args) => String(add(args)),
  });
  const agent = new Agent({ name: 'bench', instructions: 'Add numbers.', model, tools: [addTool] });
  const runner = new Runner({ tracingDisabled: true });

  return {
    async runOnce() {
      const result = await runner.run(agent, 'sum', { maxTurns: TURNS + 5 });
      expectFinal(result.finalOutput, 'openai agents');
    },
  };
}
