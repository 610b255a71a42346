/**
 * LangGraph.js with `SqliteSaver`, the durable peer. The system itself is in
 * bench/peers/langgraph-sqlite/ (its own package and install, ADR 0124); run.mjs installs it on
 * demand and, when that fails (no prebuilt better-sqlite3 and no compiler), reports it pending.
 */
import { peerSystem } from '../lib/peer-system.mjs';

export const meta = { label: 'LangGraph.js (createReactAgent + SqliteSaver, durable)', packages: ['@langchain/langgraph', '@langchain/langgraph-checkpoint-sqlite'], peer: 'langgraph-sqlite' };

export const { pendingReason, createSystem } = peerSystem('langgraph-sqlite', 'node_modules/better-sqlite3/');
