/**
 * pi-agent-core: one `Agent` per run (it owns the transcript), `agent.prompt()`, with a scripted
 * `streamFn` that answers each call with a finished assistant message (pi-ai's event stream, no
 * deltas), the tool's parameters a typebox schema (pi validates tool arguments with it).
 * pi-agent-core has no turn bound of its own.
 */
import { Agent } from '@mariozechner/pi-agent-core';
import { createAssistantMessageEventStream } from '@mariozechner/pi-ai';
import { Type } from 'typebox';
import { add, ADD_DESCRIPTION, expectFinal, scriptStep } from '../lib/workload.mjs';

export const meta = { label: 'pi-agent-core (Agent.prompt)', packages: ['@mariozechner/pi-agent-core'] };

const usage = { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, totalTokens: 15, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
const model = {
  id: 'scripted',
  name: 'scripted',
  api: 'bench',
  provider: 'bench',
  baseUrl: 'http://127.0.0.1:0',
  reasoning: false,
  input: ['text'],
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  contextWindow: 128_000,
  maxTokens: 4_096,
};

export async function createSystem(env) {
  const streamFn = (_model, context) => {
    const stream = createAssistantMessageEventStream();
    const index = context.messages.reduce((count, message) => (message.role === 'toolResult' ? count + 1 : count), 0);
    const answer = () => {
      const step = scriptStep(index);
      const message =
        step.kind === 'tool'
          ? { role: 'assistant', content: [{ type: 'toolCall', id: step.id, name: 'add', arguments: step.args }], api: 'bench', provider: 'bench', model: 'scripted', usage, stopReason: 'toolUse', timestamp: Date.now() }
          : { role: 'assistant', content: [{ type: 'text', text: step.text }], api: 'bench', provider: 'bench', model: 'scripted', usage, stopReason: 'stop', timestamp: Date.now() };
      stream.push({ type: 'done', reason: message.stopReason, message });
      stream.end(message);
    };
    if (env.pacer.wait !== undefined) void env.pacer.wait(index).then(answer);
    else answer();
    return stream;
  };
  const addTool = {
    name: 'add',
    label: 'add',
    description: ADD_DESCRIPTION,
    parameters: Type.Object({ a: Type.Number(), b: Type.Number() }),
    execute: async (_toolCallId, params) => ({ content: [{ type: 'text', text: String(add(params)) }], details: {} }),
  };

  return {
    async runOnce() {
      const agent = new Agent({ initialState: { systemPrompt: 'Add numbers.', model, tools: [addTool] }, streamFn });
      await agent.prompt('sum');
      const last = agent.state.messages[agent.state.messages.length - 1];
      expectFinal(last.content.find((block) => block.type === 'text')?.text, 'pi-agent-core');
    },
  };
}
