/**
 * The LangGraph.js system every LangGraph row runs: the prebuilt ReAct agent (`createReactAgent`)
 * with the scripted tool-calling chat model, the `add` tool defined with `tool()` and a zod schema,
 * a recursion limit that allows 15 turns — and, with a `checkpointSaver`, one thread per run.
 * Built from the caller's own LangChain modules: each durable peer resolves its packages from its
 * own install (ADR 0124).
 */
import { scriptedChatModelClass } from './langchain-scripted-model.mjs';
import { add, ADD_DESCRIPTION, expectFinal, TURNS } from './workload.mjs';

export function reactAgentSystem(modules, env, { checkpointSaver, label }) {
  const { BaseChatModel, AIMessage, HumanMessage, ToolMessage, tool, createReactAgent, z } = modules;
  const ScriptedToolCallingChatModel = scriptedChatModelClass({ BaseChatModel, AIMessage, ToolMessage });
  const addTool = tool(async (args) => String(add(args)), {
    name: 'add',
    description: ADD_DESCRIPTION,
    schema: z.object({ a: z.number(), b: z.number() }),
  });
  const agent = createReactAgent({ llm: new ScriptedToolCallingChatModel(env), tools: [addTool], ...(checkpointSaver === undefined ? {} : { checkpointSaver }) });
  const recursionLimit = 2 * (TURNS + 5) + 1;
  let thread = 0;
  return {
    async runOnce() {
      thread += 1;
      const config = checkpointSaver === undefined ? { recursionLimit } : { recursionLimit, configurable: { thread_id: `run-${thread}` } };
      const state = await agent.invoke({ messages: [new HumanMessage('sum')] }, config);
      const last = state.messages[state.messages.length - 1];
      expectFinal(last.content, label);
    },
  };
}
