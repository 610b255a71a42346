/**
 * LangGraph.js, durable: the prebuilt ReAct agent (`createReactAgent`) with `SqliteSaver` as its
 * checkpointer (a checkpoint after every super-step, its default), one thread per run, in a fresh
 * database file under the OS temp directory — the durable peer of `dualloop (sqliteStore)`.
 * Lives in its own package (ADR 0124): SqliteSaver needs better-sqlite3, a native addon.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite';
import { createReactAgent } from '@langchain/langgraph/prebuilt';
import { z } from 'zod';
import { scriptedChatModelClass } from '../../lib/langchain-scripted-model.mjs';
import { add, ADD_DESCRIPTION, expectFinal, TURNS } from '../../lib/workload.mjs';

const ScriptedToolCallingChatModel = scriptedChatModelClass({ BaseChatModel, AIMessage, ToolMessage });

export async function createSystem(env) {
  const directory = mkdtempSync(join(tmpdir(), 'dualloop-bench-langgraph-'));
  process.on('exit', () => rmSync(directory, { recursive: true, force: true }));
  const checkpointSaver = SqliteSaver.fromConnString(join(directory, 'langgraph.db'));
  const addTool = tool(async (args) => String(add(args)), {
    name: 'add',
    description: ADD_DESCRIPTION,
    schema: z.object({ a: z.number(), b: z.number() }),
  });
  const agent = createReactAgent({ llm: new ScriptedToolCallingChatModel(env), tools: [addTool], checkpointSaver });
  let thread = 0;

  return {
    async runOnce() {
      thread += 1;
      const config = { recursionLimit: 2 * (TURNS + 5) + 1, configurable: { thread_id: `run-${thread}` } };
      const state = await agent.invoke({ messages: [new HumanMessage('sum')] }, config);
      const last = state.messages[state.messages.length - 1];
      expectFinal(last.content, 'langgraph (sqlite)');
    },
  };
}
