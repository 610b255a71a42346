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
import { reactAgentSystem } from '../../lib/langgraph-agent.mjs';

export async function createSystem(env) {
  const directory = mkdtempSync(join(tmpdir(), 'dualloop-bench-langgraph-'));
  process.on('exit', () => rmSync(directory, { recursive: true, force: true }));
  const checkpointSaver = SqliteSaver.fromConnString(join(directory, 'langgraph.db'));
  return reactAgentSystem({ BaseChatModel, AIMessage, HumanMessage, ToolMessage, tool, createReactAgent, z }, env, { checkpointSaver, label: 'langgraph (sqlite)' });
}
