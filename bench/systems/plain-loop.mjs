/**
 * The floor: a plain `while` loop with the same model and tool, and nothing else
 * (no events, no bounds beyond the turn count, no persistence).
 */
import { add, expectFinal, plainModel, TURNS } from '../lib/workload.mjs';

export const meta = { label: 'plain while loop', packages: [] };

export async function createSystem(env) {
  const model = (messages) => plainModel(messages, env.pacer);
  const tools = new Map([['add', add]]);

  return {
    async runOnce() {
      const messages = [{ role: 'user', content: 'sum' }];
      let turn = 0;
      let answer = '';
      while (turn < TURNS + 5) {
        turn += 1;
        const reply = await model(messages);
        messages.push(reply);
        if (reply.toolCalls.length === 0) {
          answer = reply.content;
          break;
        }
        for (const call of reply.toolCalls) {
          const result = tools.get(call.name)(call.args);
          messages.push({ role: 'tool', toolCallId: call.id, content: String(result) });
        }
      }
      expectFinal(answer, 'plain loop');
    },
  };
}
