/**
 * LangGraph.js: the prebuilt ReAct agent (`createReactAgent`) with a fake tool-calling chat model
 * (a `BaseChatModel` whose `bindTools` keeps the script), the tool defined with `tool()` and a zod
 * schema, and a recursion limit that allows 15 turns; no checkpointer.
 */
import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { createReactAgent } from '@langchain/langgraph/prebuilt';
import { z } from 'zod';
import { reactAgentSystem } from '../lib/langgraph-agent.mjs';

export const meta = { label: 'LangGraph.js (createReactAgent)', packages: ['@langchain/langgraph', '@langchain/core'] };

export async function createSystem(env) {
  return reactAgentSystem({ BaseChatModel, AIMessage, HumanMessage, ToolMessage, tool, createReactAgent, z }, env, { label: 'langgraph' });
}
