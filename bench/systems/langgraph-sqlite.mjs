/**
 * LangGraph.js with `SqliteSaver`, the durable peer. The system itself is in
 * bench/peers/langgraph-sqlite/ (its own package and install, ADR 0124); run.mjs installs it on
 * demand and, when that fails (no prebuilt better-sqlite3 and no compiler), reports it pending.
 */
import { existsSync } from 'node:fs';

export const meta = { label: 'LangGraph.js (createReactAgent + SqliteSaver, durable)', packages: ['@langchain/langgraph', '@langchain/langgraph-checkpoint-sqlite'], peer: 'langgraph-sqlite' };

const peer = new URL('../peers/langgraph-sqlite/', import.meta.url);

export function pendingReason() {
  return existsSync(new URL('node_modules/better-sqlite3/', peer)) ? undefined : 'bench/peers/langgraph-sqlite is not installed (npm run bench installs it; it needs better-sqlite3)';
}

export async function createSystem(env) {
  const module = await import(new URL('system.mjs', peer).href);
  return module.createSystem(env);
}
