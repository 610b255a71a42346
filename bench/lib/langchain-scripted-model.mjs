/**
 * The scripted tool-calling chat model every LangGraph system uses (lib/langgraph-agent.mjs): a
 * `BaseChatModel` whose `bindTools` keeps the script. Built from the caller's own `@langchain/core`
 * classes, since each durable peer resolves its packages from its own install (ADR 0124).
 */
import { scriptStep } from './workload.mjs';

export function scriptedChatModelClass({ BaseChatModel, AIMessage, ToolMessage }) {
  return class ScriptedToolCallingChatModel extends BaseChatModel {
    constructor(env) {
      super({});
      this.env = env;
    }

    _llmType() {
      return 'scripted';
    }

    bindTools() {
      return this;
    }

    async _generate(messages) {
      const index = messages.reduce((count, message) => (ToolMessage.isInstance(message) ? count + 1 : count), 0);
      if (this.env.pacer.wait !== undefined) await this.env.pacer.wait(index);
      const step = scriptStep(index, this.env.turns);
      const message =
        step.kind === 'tool'
          ? new AIMessage({ content: '', tool_calls: [{ id: step.id, name: 'add', args: step.args, type: 'tool_call' }] })
          : new AIMessage({ content: step.text });
      return { generations: [{ text: typeof message.content === 'string' ? message.content : '', message }] };
    }
  };
}
