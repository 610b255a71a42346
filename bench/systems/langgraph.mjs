/**
 * LangGraph.js: the prebuilt ReAct agent (`createReactAgent`) with a fake tool-calling chat model
 * (a `BaseChatModel` whose `bindTools` keeps the script), the tool defined with `tool()` and a zod
 * schema, and a recursion limit that allows 15 turns.
 */
import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { createReactAgent } from '@langchain/langgraph/prebuilt';
import { z } from 'zod';
import { scriptedChatModelClass } from '../lib/langchain-scripted-model.mjs';
import { add, ADD_DESCRIPTION, expectFinal, TURNS } from '../lib/workload.mjs';

export const meta = { label: 'LangGraph.js (createReactAgent)', packages: ['@langchain/langgraph', '@langchain/core'] };

const ScriptedToolCallingChatModel = scriptedChatModelClass({ BaseChatModel, AIMessage, ToolMessage });

export async function createSystem(env) {
  const addTool = tool(async (args) => String(add(args)), {
    name: 'add',
    description: ADD_DESCRIPTION,
    schema: z.object({ a: z.number(), b: z.number() }),
  });
  const agent = createReactAgent({ llm: new ScriptedToolCallingChatModel(env), tools: [addTool] });
  const config = { recursionLimit: 2 * (TURNS + 5) + 1 };

  return {
    async runOnce() {
      const state = await agent.invoke({ messages: [new HumanMessage('sum')] }, config);
      const last = state.messages[state.messages.length - 1];
      expectFinal(last.content, 'langgraph');
    },
  };
}
