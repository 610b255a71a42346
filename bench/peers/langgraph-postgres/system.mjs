/**
 * LangGraph.js on Postgres: the prebuilt ReAct agent (`createReactAgent`) with `PostgresSaver` as
 * its checkpointer (its defaults: a pool of 10, a checkpoint after every super-step, written
 * beside the next step), one thread per run, in a fresh schema of the server run.mjs started
 * (`BENCH_DATABASE_URL`, `BENCH_SCHEMA`) — the peer of `dualloop (postgresStore)`.
 * `checkpoints()` counts the checkpoints PostgresSaver has written. Lives in its own package,
 * installed on demand like the SQLite peer (ADR 0124, ADR/0445).
 */
import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import { createReactAgent } from '@langchain/langgraph/prebuilt';
import { z } from 'zod';
import { reactAgentSystem } from '../../lib/langgraph-agent.mjs';

export async function createSystem(env) {
  const checkpointSaver = PostgresSaver.fromConnString(process.env.BENCH_DATABASE_URL, { schema: process.env.BENCH_SCHEMA ?? 'langgraph_bench' });
  await checkpointSaver.setup();
  let written = 0;
  const put = checkpointSaver.put.bind(checkpointSaver);
  checkpointSaver.put = async (...args) => {
    const saved = await put(...args);
    written += 1;
    return saved;
  };
  const system = reactAgentSystem({ BaseChatModel, AIMessage, HumanMessage, ToolMessage, tool, createReactAgent, z }, env, { checkpointSaver, label: 'langgraph (postgres)' });
  return { ...system, checkpoints: () => written };
}
