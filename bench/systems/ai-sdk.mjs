/**
 * Vercel AI SDK: `generateText` with `MockLanguageModelV4` from `ai/test`, the tool defined with
 * `tool()` and a zod schema, and a step bound (`stopWhen: stepCountIs(15)`).
 */
import { generateText, stepCountIs, tool } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { z } from 'zod';
import { add, ADD_DESCRIPTION, expectFinal, scriptStep, TURNS } from '../lib/workload.mjs';

export const meta = { label: 'Vercel AI SDK (generateText)', packages: ['ai'] };

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

export async function createSystem(env) {
  const model = new MockLanguageModelV4({
    doGenerate: async ({ prompt }) => {
      const index = prompt.reduce((count, message) => (message.role === 'tool' ? count + message.content.length : count), 0);
      if (env.pacer.wait !== undefined) await env.pacer.wait(index);
      const step = scriptStep(index);
      return step.kind === 'tool'
        ? {
            content: [{ type: 'tool-call', toolCallId: step.id, toolName: 'add', input: JSON.stringify(step.args) }],
            finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
            usage,
            warnings: [],
          }
        : { content: [{ type: 'text', text: step.text }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] };
    },
  });
  // The mock records every call for test assertions; a benchmark must not keep them alive.
  model.doGenerateCalls = { push() {}, length: 0 };
  const tools = { add: tool({ description: ADD_DESCRIPTION, inputSchema: z.object({ a: z.number(), b: z.number() }), execute: async (args) => add(args) }) };

  return {
    async runOnce() {
      const result = await generateText({ model, tools, prompt: 'sum', stopWhen: stepCountIs(TURNS + 5) });
      expectFinal(result.text, 'ai sdk');
    },
  };
}
